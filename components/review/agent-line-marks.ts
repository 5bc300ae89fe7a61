"use client";

import "@/components/review/review.css";
import { useQuery } from "@tanstack/react-query";
import type * as monaco from "@/components/editor/monaco";
import { useEffect, useMemo, useRef } from "react";
import { useActiveSession } from "@/components/review/active-session";
import { changedLines } from "@/components/review/review-hunks";
import { useTRPC } from "@/components/trpc-provider";

/**
 * Marks in the editor's gutter the lines that the agent session open in the panel changed in this
 * file, against the session's review base (what is still to review). Returns how many lines are marked.
 */
export function useAgentLineMarks(
  monacoApi: typeof monaco,
  editor: monaco.editor.ICodeEditor | null,
  path: string,
): number {
  const trpc = useTRPC();
  const sessionId = useActiveSession();
  const changes = useQuery(
    trpc.review.changes.queryOptions({ sessionId: sessionId ?? "" }, { enabled: sessionId !== null }),
  );
  const changed =
    sessionId !== null &&
    !!changes.data?.files.some((f) => f.path === path && f.hunks !== null && f.status !== "deleted");
  const file = useQuery(trpc.review.file.queryOptions({ sessionId: sessionId ?? "", path }, { enabled: changed }));
  const hunks = changed ? file.data?.hunks : undefined;
  const marks = useMemo(() => changedLines(hunks ?? []), [hunks]);
  const collection = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);

  useEffect(() => {
    if (!editor) return;
    collection.current ??= editor.createDecorationsCollection();
    collection.current.set(
      marks.map(({ line, kind }) => ({
        range: new monacoApi.Range(line, 1, line, 1),
        options: {
          isWholeLine: true,
          linesDecorationsClassName: `agent-line agent-line-${kind}`,
          overviewRuler: {
            color: kind === "deleted" ? "#e5484d" : kind === "added" ? "#4ec9b0" : "#3794ff",
            position: monacoApi.editor.OverviewRulerLane.Left,
          },
          hoverMessage: {
            value:
              kind === "deleted" ? "The agent removed lines here" : `The agent ${kind} this line (not yet accepted)`,
          },
        },
      })),
    );
  }, [monacoApi, editor, marks, path]);
  useEffect(() => () => collection.current?.clear(), []);

  return marks.filter((m) => m.kind !== "deleted").length;
}
