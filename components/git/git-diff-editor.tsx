"use client";

// Loaded only in the browser (next/dynamic, ssr: false), like the editor: Monaco from the local package.
import { DiffEditor, loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor";
import { installMonacoEnvironment } from "@/components/editor/monaco-environment";
import { useTheme } from "@/components/ui/theme";

installMonacoEnvironment();
loader.config({ monaco });

/** Monaco's side-by-side diff editor, read-only: the file before (index or HEAD) and after. */
export default function GitDiffEditor({ path, side, original, modified }: { path: string; side: string; original: string; modified: string }) {
  const { monacoTheme } = useTheme();
  const uri = (which: string) => monaco.Uri.from({ scheme: `git-${side}-${which}`, path: `/${path}` }).toString();
  return (
    <DiffEditor
      theme={monacoTheme}
      original={original}
      modified={modified}
      originalModelPath={uri("original")}
      modifiedModelPath={uri("modified")}
      options={{ readOnly: true, originalEditable: false, renderSideBySide: true, minimap: { enabled: false }, automaticLayout: true, fontSize: 13, scrollBeyondLastLine: false }}
      loading={<div className="center-message">Loading diff…</div>}
    />
  );
}
