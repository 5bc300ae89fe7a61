"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import type { Transcript } from "@/lib/session-transcript";
import type { ToolKind } from "@/lib/tool-display";
import { useOpenTabs } from "@/components/editor/open-files-context";
import { useHasChangesHost, useRegisterActiveSession } from "@/components/review/active-session";
import { useReviewRefresh } from "@/components/review/use-review-refresh";
import { useTRPC } from "@/components/trpc-provider";
import { useCommands } from "@/components/ui/commands";

/** Kinds of call that may change files (lib/tool-display.ts). */
const CHANGE_KINDS = new Set<string>(["edit", "execute"] satisfies ToolKind[]);

/**
 * "Changes (N)" in the session's header: opens the session's Changes tab in the editor area. It
 * also marks the session as the one the editor shows change marks for, and refetches the review
 * when the agent finishes an edit or a command, or the log moves the review base.
 */
export function ChangesButton({
  projectId,
  sessionId,
  transcript,
}: {
  projectId: string;
  sessionId: string;
  transcript: Transcript;
}) {
  useRegisterActiveSession(projectId, sessionId);
  const trpc = useTRPC();
  const tabs = useOpenTabs();
  const refresh = useReviewRefresh();
  const hasHost = useHasChangesHost();
  const changes = useQuery(trpc.review.changes.queryOptions({ sessionId }, { enabled: hasHost }));

  const finishedChanges = useMemo(
    () =>
      transcript.items.reduce((n, i) => n + (i.kind === "tool" && CHANGE_KINDS.has(i.toolKind) && i.result ? 1 : 0), 0),
    [transcript],
  );
  useEffect(() => refresh(), [finishedChanges, transcript.reviewSeq, refresh]);

  const count = changes.data?.files.length ?? 0;
  const shown = hasHost && !!changes.data?.baseId;
  useCommands(
    shown
      ? [
          {
            id: "changes",
            label: `Review the session's changes (${count} files)`,
            run: () => tabs.openChanges(sessionId),
          },
        ]
      : null,
  );

  if (!shown) return null;
  return (
    <button
      type="button"
      className="btn btn-ghost btn-sm changes-button"
      onClick={() => tabs.openChanges(sessionId)}
      data-testid="changes-button"
      data-count={count}
      title="Review the files this session changed: accept or reject each change"
    >
      Changes ({count})
    </button>
  );
}
