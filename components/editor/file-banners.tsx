"use client";

import type { FileBuffer } from "@/components/editor/file-buffer";
import type { FileBuffers } from "@/components/editor/file-buffers";

/**
 * The notices above the editor: a conflict with the disk, a failed save, a read-only file, and git
 * conflict markers in the file (`gitConflicted`, as Source Control reports it).
 */
export function FileBanners({
  file,
  buffers,
  onClose,
  gitConflicted,
}: {
  file: FileBuffer;
  buffers: FileBuffers;
  /** Closes the file's tab (offered when the file was deleted on disk). */
  onClose: () => void;
  gitConflicted: boolean;
}) {
  const { conflict, path } = file;
  const gitConflict = gitConflicted && file.kind === "text" && !file.readOnly;
  return (
    <>
      {gitConflict && (
        <div className="banner banner-warning" role="status" data-testid="git-conflict-banner">
          <span className="banner-text">
            <strong>Merge conflict.</strong> Keep one side or both in every block between{" "}
            <code>&lt;&lt;&lt;&lt;&lt;&lt;&lt;</code> and <code>&gt;&gt;&gt;&gt;&gt;&gt;&gt;</code> (or edit them by
            hand), save, then stage the file in Source Control.
          </span>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => buffers.resolveGitConflicts(path, "current")}
            data-testid="git-accept-current"
          >
            Accept Current
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => buffers.resolveGitConflicts(path, "incoming")}
            data-testid="git-accept-incoming"
          >
            Accept Incoming
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => buffers.resolveGitConflicts(path, "both")}
            data-testid="git-accept-both"
          >
            Accept Both
          </button>
        </div>
      )}
      {conflict?.kind === "changed" && (
        <div className="banner banner-warning" role="alert" data-testid="conflict-banner">
          <span className="banner-text">
            <strong>This file changed on disk</strong> while you had unsaved changes.
          </span>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => void buffers.reload(path)}
            data-testid="conflict-reload"
          >
            Reload (discard mine)
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => void buffers.keepMine(path)}
            data-testid="conflict-keep"
          >
            Keep mine (overwrite)
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => buffers.merge(path)}
            data-testid="conflict-merge"
            title="Combine the changes on disk with yours; where both changed the same lines, both stay between markers"
          >
            Merge both
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => buffers.setComparing(path, !file.comparing)}
            data-testid="conflict-compare"
          >
            {file.comparing ? "Close compare" : "Compare"}
          </button>
        </div>
      )}
      {file.mergeConflicts && (
        <div className="banner banner-warning" role="status" data-testid="merge-conflicts-banner">
          <span className="banner-text">
            <strong>{file.mergeConflicts === 1 ? "1 change" : `${file.mergeConflicts} changes`} overlapped.</strong>{" "}
            Both versions are in the file between <code>&lt;&lt;&lt;&lt;&lt;&lt;&lt;</code> and{" "}
            <code>&gt;&gt;&gt;&gt;&gt;&gt;&gt;</code>: keep what you want, remove the markers, then save.
            {file.live ? " Everyone with the file open sees them." : " Ctrl+Z undoes the merge."}
          </span>
        </div>
      )}
      {conflict?.kind === "deleted" && (
        <div className="banner banner-warning" role="alert" data-testid="deleted-banner">
          <span className="banner-text">
            <strong>This file was deleted on disk.</strong>
          </span>
          <button type="button" className="btn btn-sm" onClick={onClose}>
            Close tab
          </button>
          {file.kind === "text" && (
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => void buffers.keepMine(path)}
              data-testid="conflict-keep"
            >
              Keep mine (save again)
            </button>
          )}
        </div>
      )}
      {file.error && file.status === "ready" && (
        <div className="banner banner-warning" role="alert" data-testid="save-error">
          <span className="banner-text">{file.error}</span>
        </div>
      )}
      {file.notLive && !file.readOnly && (
        <div className="live-off" data-testid="not-live" title="Each person edits their own copy of this file.">
          Not shared live: {file.notLive}
        </div>
      )}
      {file.readOnly && (
        <div className="banner banner-info" data-testid="readonly-notice">
          <span className="banner-text">{file.notice ?? "This file is read-only."}</span>
        </div>
      )}
    </>
  );
}
