"use client";

// Loaded only in the browser (next/dynamic, ssr: false), like the editor: Monaco from the local package.
import { DiffEditor, loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor";
import { installMonacoEnvironment } from "@/components/editor/monaco-environment";
import { useTheme } from "@/components/ui/theme";

installMonacoEnvironment();
loader.config({ monaco });

type ApprovalDiffProps = { id: string; path: string; before: string; after: string };

/** A read-only inline diff of what an edit will do. Models live under their own scheme, apart from the editor's files. */
export default function ApprovalDiff({ id, path, before, after }: ApprovalDiffProps) {
  const { monacoTheme } = useTheme();
  const lines = Math.max(before.split("\n").length, after.split("\n").length);
  const height = Math.min(320, Math.max(64, lines * 19 + 24));
  const uri = (side: string) => monaco.Uri.from({ scheme: `approval-${side}`, path: `/${id}/${path}` }).toString();
  return (
    <div className="approval-diff" style={{ height }} data-testid="approval-diff">
      <DiffEditor
        theme={monacoTheme}
        original={before}
        modified={after}
        originalModelPath={uri("before")}
        modifiedModelPath={uri("after")}
        options={{
          readOnly: true,
          originalEditable: false,
          renderSideBySide: false,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          automaticLayout: true,
          fontSize: 12,
          lineNumbersMinChars: 3,
          renderOverviewRuler: false,
          hideUnchangedRegions: { enabled: true, contextLineCount: 3 },
          scrollbar: { alwaysConsumeMouseWheel: false },
        }}
        loading={<div className="center-message">Loading diff…</div>}
      />
    </div>
  );
}
