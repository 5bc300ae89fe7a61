"use client";

import { useOpenFilesStore } from "@/components/editor/open-files-context";
import { relativePath, type DiffFile } from "@/components/chat/tool-display";

/** A unified diff as the edit tools report it, one file after another, each openable in the editor. */
export function DiffView({ files }: { files: DiffFile[] }) {
  const store = useOpenFilesStore();
  return (
    <div className="diff-files">
      {files.map((file) => (
        <div key={file.path} className="diff-file" data-testid="diff-file">
          <div className="diff-file-header">
            <span className="diff-path">{file.path}</span>
            <span className="diff-added">+{file.added}</span>
            <span className="diff-removed">−{file.removed}</span>
            <span className="spacer" />
            <button type="button" className="btn btn-ghost btn-sm" data-testid="open-in-editor" onClick={() => void store.open(relativePath(file.path))}>
              Open in editor
            </button>
          </div>
          <pre className="diff-lines">
            {file.diff
              .split("\n")
              .filter((line) => !line.startsWith("--- ") && !line.startsWith("+++ "))
              .map((line, i) => (
                <div key={i} className={line.startsWith("@@") ? "diff-hunk" : line.startsWith("+") ? "diff-add" : line.startsWith("-") ? "diff-del" : undefined}>
                  {line || " "}
                </div>
              ))}
          </pre>
        </div>
      ))}
    </div>
  );
}
