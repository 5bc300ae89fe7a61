"use client";

// Loaded only in the browser (next/dynamic, ssr: false), like the editor: Monaco from the local package.
import { DiffEditor, loader, type DiffOnMount } from "@monaco-editor/react";
import * as monaco from "@/components/editor/monaco";
import { useDisposeDiffModels } from "@/components/editor/diff-models";
import { installMonacoEnvironment, MONACO_WRAPPER } from "@/components/editor/monaco-environment";
import { useTheme } from "@/components/ui/theme";

installMonacoEnvironment();
loader.config({ monaco });

export type ReadOnlyDiffProps = {
  /** The models' URI scheme, apart from the editor's files ("file"), so a diff never shows up as an open file. */
  scheme: string;
  /** Tells this diff's models apart from others under the same scheme. */
  modelKey: string;
  original: string;
  modified: string;
  onMount?: DiffOnMount;
  /** Over the read-only defaults: inline, wrapped, no minimap. */
  options?: monaco.editor.IDiffEditorConstructionOptions;
};

/** Monaco's diff editor, read-only, in the current theme, with models disposed safely after it (diff-models.ts). */
export function ReadOnlyDiff({ scheme, modelKey, original, modified, onMount, options }: ReadOnlyDiffProps) {
  const { monacoTheme } = useTheme();
  const uri = (side: "original" | "modified") =>
    monaco.Uri.from({ scheme: `${scheme}-${side}`, path: `/${modelKey}` }).toString();
  useDisposeDiffModels([uri("original"), uri("modified")]);
  return (
    <DiffEditor
      wrapperProps={MONACO_WRAPPER}
      theme={monacoTheme}
      original={original}
      modified={modified}
      originalModelPath={uri("original")}
      modifiedModelPath={uri("modified")}
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      onMount={onMount}
      options={{
        readOnly: true,
        originalEditable: false,
        renderSideBySide: false,
        minimap: { enabled: false },
        scrollBeyondLastLine: false,
        automaticLayout: true,
        fontSize: 13,
        wordWrap: "on",
        ...options,
      }}
      loading={<div className="center-message">Loading diff…</div>}
    />
  );
}
