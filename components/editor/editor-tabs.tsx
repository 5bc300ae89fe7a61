"use client";

import type { FileBuffer } from "@/components/editor/file-buffer";
import { tabFolders } from "@/components/editor/tab-labels";
import "./live.css";
import { CloseIcon } from "@/components/ui/icons";
import { closeOnMiddleClick } from "@/components/ui/middle-click";

/** Who else has a live file open, for the tab's tooltip. */
const names = (file: FileBuffer) => file.peers.map((peer) => peer.name).join(", ");

type EditorTabsProps = {
  files: FileBuffer[];
  active: string | null;
  onActivate: (path: string) => void;
  onClose: (path: string) => void;
  /** Follows the person (follow mode). */
  onFollow: (name: string) => void;
  /** The Changes tab (an agent session's review), when open. */
  changes?: SpecialTab | null;
  /** The Source Control diff tab, when open. */
  gitDiff?: SpecialTab | null;
};

type SpecialTab = { active: boolean; label: string; onActivate: () => void; onClose: () => void };

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

export function EditorTabs({ files, active, onActivate, onClose, onFollow, changes, gitDiff }: EditorTabsProps) {
  const fileActive = (path: string) => path === active && !changes?.active && !gitDiff?.active;
  const folders = tabFolders(files.map((f) => f.path));
  return (
    <div className="tabs" role="tablist" data-testid="editor-tabs">
      {files.map((file) => (
        <div
          key={file.path}
          role="tab"
          aria-selected={fileActive(file.path)}
          title={file.peers.length ? `${file.path}\nAlso open by ${names(file)}` : file.path}
          className={fileActive(file.path) ? "tab active" : "tab"}
          data-testid={`tab-${file.path}`}
          data-dirty={file.dirty || undefined}
          onClick={() => onActivate(file.path)}
          {...closeOnMiddleClick(() => onClose(file.path))}
        >
          <span style={file.conflict ? { color: "var(--fg-modified)" } : undefined}>{baseName(file.path)}</span>
          {folders.has(file.path) && (
            <span className="tab-folder" data-testid="tab-folder">
              {folders.get(file.path)}
            </span>
          )}
          {file.peers.length > 0 && (
            <span className="tab-peers" data-testid="tab-peers" title={`Also open by ${names(file)}`}>
              {file.peers.map((peer) => (
                <button
                  type="button"
                  key={peer.name}
                  className="tab-peer"
                  style={{ backgroundColor: peer.color }}
                  title={`Follow ${peer.name}`}
                  aria-label={`Follow ${peer.name}`}
                  data-testid="tab-peer"
                  data-name={peer.name}
                  onClick={(event) => {
                    event.stopPropagation();
                    onFollow(peer.name);
                  }}
                >
                  {peer.name.slice(0, 1).toUpperCase()}
                </button>
              ))}
            </span>
          )}
          {file.dirty && (
            <span className="tab-dirty" data-testid="tab-dirty" role="img" aria-label="unsaved changes">
              ●
            </span>
          )}
          <button
            type="button"
            className="icon-btn tab-close"
            aria-label={`Close ${baseName(file.path)}`}
            data-testid="tab-close"
            onClick={(event) => {
              event.stopPropagation();
              onClose(file.path);
            }}
          >
            <CloseIcon size={14} />
          </button>
        </div>
      ))}
      {changes && (
        <div
          role="tab"
          aria-selected={changes.active}
          className={changes.active ? "tab tab-changes active" : "tab tab-changes"}
          data-testid="tab-changes"
          onClick={changes.onActivate}
          {...closeOnMiddleClick(changes.onClose)}
        >
          <span>{changes.label}</span>
          <button
            type="button"
            className="icon-btn tab-close"
            aria-label="Close Changes"
            data-testid="tab-changes-close"
            onClick={(event) => {
              event.stopPropagation();
              changes.onClose();
            }}
          >
            <CloseIcon size={14} />
          </button>
        </div>
      )}
      {gitDiff && (
        <div
          role="tab"
          aria-selected={gitDiff.active}
          className={gitDiff.active ? "tab tab-changes active" : "tab tab-changes"}
          data-testid="tab-git-diff"
          title={gitDiff.label}
          onClick={gitDiff.onActivate}
          onAuxClick={(event) => {
            if (event.button === 1) gitDiff.onClose();
          }}
        >
          <span>{gitDiff.label}</span>
          <button
            type="button"
            className="icon-btn tab-close"
            aria-label="Close the diff"
            data-testid="tab-git-diff-close"
            onClick={(event) => {
              event.stopPropagation();
              gitDiff.onClose();
            }}
          >
            <CloseIcon size={14} />
          </button>
        </div>
      )}
    </div>
  );
}
