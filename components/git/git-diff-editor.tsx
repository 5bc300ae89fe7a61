"use client";

import type { DiffOnMount } from "@monaco-editor/react";
import { ReadOnlyDiff } from "@/components/editor/read-only-diff";

/**
 * Once the first diff is computed, shows its first change (as VS Code opens a diff): a change far
 * down a long file is in view without scrolling for it.
 */
const revealFirstChange: DiffOnMount = (editor) => {
  const computed = editor.onDidUpdateDiff(() => {
    const first = editor.getLineChanges()?.[0];
    if (!first) return;
    computed.dispose();
    // A pure deletion has no modified lines; its start is the line above the gap.
    editor.getModifiedEditor().revealLineInCenter(Math.max(1, first.modifiedStartLineNumber));
  });
  editor.onDidDispose(() => computed.dispose());
};

/** Monaco's side-by-side diff editor, read-only: the file before (index or HEAD) and after. */
export default function GitDiffEditor({
  path,
  side,
  original,
  modified,
}: {
  path: string;
  side: string;
  original: string;
  modified: string;
}) {
  return (
    <ReadOnlyDiff
      scheme={`git-${side}`}
      modelKey={path}
      original={original}
      modified={modified}
      onMount={revealFirstChange}
      options={{ renderSideBySide: true, wordWrap: "off" }}
    />
  );
}
