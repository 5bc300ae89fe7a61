"use client";

import { useOpenTabs } from "@/components/editor/open-files-context";
import type { DiffFile } from "@/lib/tool-display";
import { relativePath } from "@/components/editor/open-tabs";
import { diffLinesForDisplay, type DiffLine } from "@/components/chat/diff-lines";

const LINE_CLASS: Record<DiffLine["kind"], string | undefined> = {
  hunk: "diff-hunk",
  add: "diff-add",
  del: "diff-del",
  context: undefined,
  note: "diff-note",
};

/** A unified diff as the edit tools report it, one file after another, each openable in the editor. */
export function DiffView({ files }: { files: DiffFile[] }) {
  const tabs = useOpenTabs();
  return (
    <div className="diff-files">
      {files.map((file) => (
        <div key={file.path} className="diff-file" data-testid="diff-file">
          <div className="diff-file-header">
            <span className="diff-path">{file.path}</span>
            <span className="diff-added">+{file.added}</span>
            <span className="diff-removed">−{file.removed}</span>
            <span className="spacer" />
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              data-testid="open-in-editor"
              onClick={() => void tabs.open(relativePath(file.path))}
            >
              Open in editor
            </button>
          </div>
          <pre className="diff-lines">
            {diffLinesForDisplay(file.diff).map((line, i) => (
              <div key={i} className={LINE_CLASS[line.kind]}>
                {line.text || " "}
              </div>
            ))}
          </pre>
        </div>
      ))}
    </div>
  );
}
