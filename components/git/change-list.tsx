"use client";

import { useOpenTabs } from "@/components/editor/open-files-context";
import { FileIcon } from "@/components/ui/file-icon";
import { DiscardIcon, MinusIcon, OpenFileIcon, PlusIcon } from "@/components/ui/icons";
import type { GitFileChange } from "@/lib/git-schemas";

export type ChangeSection = "merge" | "staged" | "changes";
type Row = GitFileChange & { untracked?: boolean };

const LETTER_TITLE: Record<string, string> = {
  M: "Modified",
  A: "Added",
  D: "Deleted",
  R: "Renamed",
  C: "Copied",
  T: "Type changed",
  U: "Untracked",
  "!": "Conflict",
};

/** One section of the panel (Merge Changes, Staged Changes, Changes): file, folder, status letter, actions. */
export function ChangeList(props: {
  section: ChangeSection;
  title: string;
  rows: Row[];
  canWrite: boolean;
  busy: boolean;
  onStage?: (paths: string[]) => void;
  onUnstage?: (paths: string[]) => void;
  onDiscard?: (paths: string[]) => void;
}) {
  const { section, title, rows, canWrite, busy, onStage, onUnstage, onDiscard } = props;
  const tabs = useOpenTabs();
  if (rows.length === 0) return null;
  const all = rows.map((r) => r.path);

  return (
    <div className="scm-section" data-testid={`scm-section-${section}`}>
      <div className="scm-section-header">
        <span>{title}</span>
        <span className="spacer" />
        {canWrite && onDiscard && (
          <button
            type="button"
            className="icon-btn"
            title="Discard All Changes"
            aria-label="Discard All Changes"
            disabled={busy}
            onClick={() => onDiscard(all)}
          >
            <DiscardIcon />
          </button>
        )}
        {canWrite && onStage && (
          <button
            type="button"
            className="icon-btn"
            title="Stage All Changes"
            aria-label="Stage All Changes"
            disabled={busy}
            onClick={() => onStage(all)}
            data-testid={`scm-stage-all-${section}`}
          >
            <PlusIcon />
          </button>
        )}
        {canWrite && onUnstage && (
          <button
            type="button"
            className="icon-btn"
            title="Unstage All Changes"
            aria-label="Unstage All Changes"
            disabled={busy}
            onClick={() => onUnstage(all)}
          >
            <MinusIcon />
          </button>
        )}
        <span className="scm-count">{rows.length}</span>
      </div>
      <ul>
        {rows.map((row) => {
          const name = row.path.slice(row.path.lastIndexOf("/") + 1);
          const dir = row.path.includes("/") ? row.path.slice(0, row.path.lastIndexOf("/")) : "";
          const letter = row.untracked ? "U" : section === "merge" ? "!" : row.letter;
          // A click shows the change in the diff editor; a conflict or an untracked file opens as a file.
          const open = () => {
            if (section === "merge" || row.untracked || row.letter === "D") void tabs.open(row.path);
            else tabs.openGitDiff({ path: row.path, side: section === "staged" ? "index" : "worktree" });
          };
          return (
            <li
              key={row.path}
              className={`scm-row scm-${letter === "!" ? "conflict" : letter}`}
              data-testid={`scm-${section}-${row.path}`}
              title={`${row.path} · ${LETTER_TITLE[letter] ?? letter}`}
              onClick={open}
            >
              <FileIcon name={name} />
              <span className="scm-name">{name}</span>
              <span className="scm-dir">{dir}</span>
              <span className="spacer" />
              <span className="scm-actions" onClick={(event) => event.stopPropagation()}>
                <button
                  type="button"
                  className="icon-btn"
                  title="Open File"
                  aria-label={`Open ${row.path}`}
                  onClick={() => void tabs.open(row.path)}
                >
                  <OpenFileIcon size={14} />
                </button>
                {canWrite && onDiscard && (
                  <button
                    type="button"
                    className="icon-btn"
                    title="Discard Changes"
                    aria-label={`Discard changes in ${row.path}`}
                    disabled={busy}
                    onClick={() => onDiscard([row.path])}
                    data-testid={`scm-discard-${row.path}`}
                  >
                    <DiscardIcon size={14} />
                  </button>
                )}
                {canWrite && onStage && (
                  <button
                    type="button"
                    className="icon-btn"
                    title={section === "merge" ? "Mark as Resolved (Stage)" : "Stage Changes"}
                    aria-label={`Stage ${row.path}`}
                    disabled={busy}
                    onClick={() => onStage([row.path])}
                    data-testid={`scm-stage-${row.path}`}
                  >
                    <PlusIcon size={14} />
                  </button>
                )}
                {canWrite && onUnstage && (
                  <button
                    type="button"
                    className="icon-btn"
                    title="Unstage Changes"
                    aria-label={`Unstage ${row.path}`}
                    disabled={busy}
                    onClick={() => onUnstage([row.path])}
                    data-testid={`scm-unstage-${row.path}`}
                  >
                    <MinusIcon size={14} />
                  </button>
                )}
              </span>
              <span className="scm-letter" data-testid="scm-letter">
                {letter}
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
