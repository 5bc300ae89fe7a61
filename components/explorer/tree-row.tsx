"use client";

import { useState } from "react";
import { useExplorer } from "@/components/explorer/explorer-context";
import { FileIcon } from "@/components/ui/file-icon";
import { NameInput } from "@/components/explorer/name-input";
import { isFileDrag, readDrop } from "@/components/explorer/dropped-files";
import { useGitDecorations } from "@/components/git/git-context";
import { parentOf } from "@/components/ui/paths";
import { useUploads } from "@/components/explorer/uploads";
import type { FileEntry } from "@/lib/fs-schemas";

export const DRAG_TYPE = "application/x-tandem-path";

/** Opens the explorer's context menu; set by <Explorer>. */
export type ContextMenuRequest = (event: React.MouseEvent, entry: FileEntry | null) => void;

export function TreeRow({
  entry,
  depth,
  onContextMenu,
}: {
  entry: FileEntry;
  depth: number;
  onContextMenu: ContextMenuRequest;
}) {
  const explorer = useExplorer();
  const uploads = useUploads();
  const [dropHere, setDropHere] = useState(false);
  const isDir = entry.type === "directory";
  const open = isDir && explorer.expanded.has(entry.path);
  const renaming = explorer.renaming === entry.path;
  // Dropping on a file moves into the folder that holds it, as in VS Code.
  const dropFolder = isDir ? entry.path : parentOf(entry.path);

  const decoration = useGitDecorations()?.(entry.path, isDir) ?? null;
  const unsaved = explorer.unsaved.has(entry.path);
  // Others in a file: their initials; in a collapsed folder: one quiet dot, the names on hover.
  const openers = isDir ? [] : explorer.openBy.file(entry.path);
  const inFolder = isDir && !open ? explorer.openBy.folder(entry.path) : [];
  const className = [
    "tree-row",
    explorer.selected === entry.path && "selected",
    entry.ignored && "ignored",
    dropHere && "drop-target",
    decoration && `git-${decoration.kind}`,
    unsaved && "unsaved",
  ]
    .filter(Boolean)
    .join(" ");

  return (
    <div
      className={className}
      style={{ paddingLeft: 8 + depth * 12 }}
      role="treeitem"
      aria-expanded={isDir ? open : undefined}
      aria-selected={explorer.selected === entry.path}
      data-testid={`tree-item-${entry.path}`}
      data-tree-path={entry.path}
      data-tree-type={entry.type}
      data-ignored={entry.ignored || undefined}
      data-unsaved={unsaved || undefined}
      title={entry.path}
      draggable={explorer.canWrite && !renaming}
      onClick={() => {
        explorer.setSelected(entry.path);
        if (isDir) explorer.setExpanded(entry.path, !open);
        else explorer.openFile(entry.path);
      }}
      onContextMenu={(event) => onContextMenu(event, entry)}
      onDragStart={(event) => {
        event.dataTransfer.setData(DRAG_TYPE, entry.path);
        event.dataTransfer.effectAllowed = "move";
      }}
      onDragOver={(event) => {
        if (!explorer.canWrite) return;
        const files = isFileDrag(event.dataTransfer);
        if (!event.dataTransfer.types.includes(DRAG_TYPE) && !files) return;
        event.preventDefault();
        event.stopPropagation();
        event.dataTransfer.dropEffect = files ? "copy" : "move";
        if (isDir) setDropHere(true);
      }}
      onDragLeave={() => setDropHere(false)}
      onDrop={(event) => {
        if (!explorer.canWrite) return;
        if (isFileDrag(event.dataTransfer)) {
          // Files from the desktop: uploaded into this folder (or the one holding this file).
          setDropHere(false);
          event.preventDefault();
          event.stopPropagation();
          void readDrop(event.dataTransfer).then((items) => uploads.upload(items, dropFolder));
          return;
        }
        const from = event.dataTransfer.getData(DRAG_TYPE);
        setDropHere(false);
        if (!from) return;
        event.preventDefault();
        event.stopPropagation();
        explorer.moveInto(from, dropFolder);
      }}
    >
      <span className="twisty" aria-hidden>
        {isDir ? (open ? "▾" : "▸") : ""}
      </span>
      {!isDir && <FileIcon name={entry.name} />}
      {renaming ? (
        <NameInput
          initial={entry.name}
          testId="rename-input"
          onCommit={(name) => explorer.commitRename(entry.path, name)}
          onCancel={() => explorer.setRenaming(null)}
        />
      ) : (
        <span className="label">
          {entry.name}
          {entry.type === "symlink" && <span className="hint"> ↪</span>}
        </span>
      )}
      {unsaved && (
        <span
          className="tree-unsaved"
          title="Unsaved changes"
          role="img"
          aria-label="unsaved changes"
          data-testid="tree-unsaved"
        >
          ●
        </span>
      )}
      {openers.length > 0 && (
        <span
          className="tree-peers"
          title={`Open by ${openers.map((person) => person.name).join(", ")}`}
          data-testid="tree-peers"
        >
          {openers.slice(0, 3).map((person) => (
            <span
              key={person.name}
              className="tree-peer"
              style={{ backgroundColor: person.color }}
              data-name={person.name}
            >
              {person.name.slice(0, 1).toUpperCase()}
            </span>
          ))}
          {openers.length > 3 && <span className="tree-peer-more">+{openers.length - 3}</span>}
        </span>
      )}
      {inFolder.length > 0 && (
        <span
          className="tree-folder-peers"
          role="img"
          aria-label={`Open inside by ${inFolder.map((person) => person.name).join(", ")}`}
          title={inFolder.map((person) => `${person.name}: ${person.files.join(", ")}`).join("\n")}
          style={{ backgroundColor: inFolder[0]!.color }}
          data-testid="tree-folder-peers"
        />
      )}
      {decoration?.letter && (
        <span className="git-letter" data-testid="git-decoration">
          {decoration.letter}
        </span>
      )}
    </div>
  );
}
