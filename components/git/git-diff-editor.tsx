"use client";

import { ReadOnlyDiff } from "@/components/editor/read-only-diff";

/** Monaco's side-by-side diff editor, read-only: the file before (index or HEAD) and after. */
export default function GitDiffEditor({ path, side, original, modified }: { path: string; side: string; original: string; modified: string }) {
  return <ReadOnlyDiff scheme={`git-${side}`} modelKey={path} original={original} modified={modified} options={{ renderSideBySide: true, wordWrap: "off" }} />;
}
