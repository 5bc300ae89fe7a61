"use client";

import "@/components/review/review.css";
import { useMutation } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { createPortal } from "react-dom";
import type { TranscriptItem } from "@/lib/session-transcript";
import { RestoreDialog } from "@/components/review/restore-dialog";
import { useReviewRefresh } from "@/components/review/use-review-refresh";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type ReviewItem = Extract<TranscriptItem, { kind: "checkpoint" | "restore" | "rewound" }>;

type Props = {
  item: ReviewItem;
  sessionId: string;
  canWrite: boolean;
  /** Renders an item of a rewound group (the transcript's own renderer). */
  renderItem: (item: TranscriptItem, index: number) => ReactNode;
};

/** The transcript's checkpoint, restore and rewound items (lib/session-transcript.ts). */
export function TranscriptReviewItem({ item, sessionId, canWrite, renderItem }: Props) {
  switch (item.kind) {
    case "checkpoint":
      return <CheckpointLine item={item} sessionId={sessionId} canWrite={canWrite} />;
    case "restore":
      return <RestoreBanner item={item} sessionId={sessionId} canWrite={canWrite} />;
    case "rewound":
      return (
        <details className="rewound" data-testid="rewound">
          <summary>
            Rewound: {item.items.length} {item.items.length === 1 ? "item" : "items"} the agent no longer sees
          </summary>
          <div className="rewound-items">
            {item.items.map((inner, i) => (
              <div key={i}>{renderItem(inner, i)}</div>
            ))}
          </div>
        </details>
      );
  }
}

function CheckpointLine({
  item,
  sessionId,
  canWrite,
}: {
  item: Extract<TranscriptItem, { kind: "checkpoint" }>;
  sessionId: string;
  canWrite: boolean;
}) {
  const [restoring, setRestoring] = useState(false);
  return (
    <div className="checkpoint-line" data-testid="checkpoint" data-checkpoint={item.checkpointId}>
      <span className="checkpoint-mark" aria-hidden>
        ◆
      </span>
      <span className="muted" title="The files as they were before the agent changed anything in this turn">
        Checkpoint
      </span>
      <span className="spacer" />
      {canWrite && (
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={() => setRestoring(true)}
          data-testid="restore-turn"
        >
          Restore to before this turn
        </button>
      )}
      {restoring &&
        createPortal(
          <RestoreDialog sessionId={sessionId} checkpointId={item.checkpointId} onClose={() => setRestoring(false)} />,
          document.body,
        )}
    </div>
  );
}

function RestoreBanner({
  item,
  sessionId,
  canWrite,
}: {
  item: Extract<TranscriptItem, { kind: "restore" }>;
  sessionId: string;
  canWrite: boolean;
}) {
  const trpc = useTRPC();
  const refresh = useReviewRefresh();
  const undo = useMutation(trpc.checkpoint.undoRestore.mutationOptions({ onSettled: refresh }));
  const files = item.files.length === 1 ? "1 file" : `${item.files.length} files`;
  return (
    <div
      className={item.undone ? "restore-banner undone" : "restore-banner"}
      data-testid="restore-banner"
      data-undone={item.undone || undefined}
    >
      <div className="banner-text">
        <strong>
          {item.by.name} restored {files} to before a turn{item.rewound ? " and rewound the conversation" : ""}.
        </strong>
        {item.undone && <span className="muted"> Undone: the files are back as they were before the restore.</span>}
        {item.failed.length > 0 && (
          <div className="error-text">
            Not restored: {item.failed.map((f) => `${f.path} (${f.message})`).join("; ")}
          </div>
        )}
        {undo.error && <div className="error-text">{errorMessage(undo.error)}</div>}
      </div>
      {canWrite && !item.undone && (
        <button
          type="button"
          className="btn btn-sm"
          disabled={undo.isPending}
          onClick={() => undo.mutate({ sessionId, undoId: item.undoId })}
          data-testid="undo-restore"
        >
          {undo.isPending ? "Undoing…" : "Undo restore"}
        </button>
      )}
    </div>
  );
}
