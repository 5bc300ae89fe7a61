"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useContext, useState } from "react";
import { JumpToLatest } from "@/components/ui/virtual-list";
import { useReviewRefresh } from "@/components/review/use-review-refresh";
import { useTRPC } from "@/components/trpc-provider";
import { Dialog } from "@/components/ui/dialog";
import { errorMessage } from "@/components/ui/error-message";

const STATUS_TEXT: Record<string, string> = {
  added: "comes back",
  modified: "changes back",
  deleted: "is removed",
  renamed: "moves back",
};

/** "Restore to before this turn": what will change, the option to rewind the conversation too, then the restore. */
export function RestoreDialog({
  sessionId,
  checkpointId,
  onClose,
}: {
  sessionId: string;
  checkpointId: string;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const refresh = useReviewRefresh();
  const jumpToLatest = useContext(JumpToLatest);
  const [rewind, setRewind] = useState(false);
  const preview = useQuery(trpc.checkpoint.preview.queryOptions({ sessionId, checkpointId }, { staleTime: 0 }));
  const restore = useMutation(
    trpc.checkpoint.restore.mutationOptions({
      onSuccess: () => {
        refresh();
        onClose();
        // The restore's confirmation and its Undo land at the end of the conversation: show them.
        jumpToLatest();
      },
    }),
  );
  const files = preview.data?.files ?? [];

  return (
    <Dialog title="Restore to before this turn" onClose={onClose} testId="restore-dialog">
      {preview.isPending ? (
        <p className="muted">Comparing with the checkpoint…</p>
      ) : preview.error ? (
        <p className="error-text">{errorMessage(preview.error)}</p>
      ) : files.length === 0 ? (
        <p>The files are already as they were before this turn.</p>
      ) : (
        <>
          <p>
            {files.length === 1 ? "This file goes back" : `These ${files.length} files go back`} to how they were before
            the turn. You can undo the restore afterwards.
          </p>
          <ul className="restore-files" data-testid="restore-files">
            {files.map((f) => (
              <li key={f.path} data-path={f.path}>
                <code>{f.path}</code> <span className="muted">{STATUS_TEXT[f.status] ?? f.status}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <label className="restore-rewind">
        <input
          type="checkbox"
          checked={rewind}
          onChange={(event) => setRewind(event.target.checked)}
          data-testid="restore-rewind"
        />
        Also rewind the conversation: the agent forgets this turn and the ones after it (they stay in the log,
        collapsed)
      </label>
      {restore.error && (
        <p className="error-text" role="alert">
          {errorMessage(restore.error)}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={restore.isPending || preview.isPending || !!preview.error}
          onClick={() => restore.mutate({ sessionId, checkpointId, rewindConversation: rewind })}
          data-testid="restore-confirm"
        >
          {restore.isPending ? "Restoring…" : "Restore"}
        </button>
      </div>
    </Dialog>
  );
}
