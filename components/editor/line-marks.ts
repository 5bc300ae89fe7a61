"use client";

import { useEffect, useRef } from "react";
import type * as monaco from "@/components/editor/monaco";

/** A line the agent changed and nobody accepted yet; which lines is the review's business (components/review). */
export type LineMark = { line: number; kind: "added" | "modified" | "deleted" };

/**
 * Draws `marks` in the editor's gutter and overview ruler (the classes are styled by
 * components/review/review.css). Returns how many lines are marked, deletions left out.
 */
export function useLineMarks(
  monacoApi: typeof monaco,
  editor: monaco.editor.ICodeEditor | null,
  marks: readonly LineMark[],
): number {
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
  }, [monacoApi, editor, marks]);
  useEffect(() => () => collection.current?.clear(), []);

  return marks.filter((m) => m.kind !== "deleted").length;
}
