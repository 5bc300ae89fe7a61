"use client";

import { useCallback, useImperativeHandle, useState, type KeyboardEvent, type Ref } from "react";
import { ContextMenu, downloadFromProject, type MenuState } from "@/components/explorer/context-menu";
import { isFileDrag, readDrop } from "@/components/explorer/dropped-files";
import { UploadProgress, UploadsProvider, useUploads } from "@/components/explorer/uploads";
import { useExplorer, type EntryType } from "@/components/explorer/explorer-context";
import { baseName, parentOf } from "@/components/ui/paths";
import { TreeFolder } from "@/components/explorer/tree-folder";
import { DRAG_TYPE, type ContextMenuRequest } from "@/components/explorer/tree-row";
import { useCommands } from "@/components/ui/commands";
import { useTreeInput } from "@/components/ui/tree-context";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CollapseIcon, EyeIcon, NewFileIcon, NewFolderIcon, RefreshIcon } from "@/components/ui/icons";

/** The file tree; shown from the side bar (`ref`), it takes the keyboard. */
export function Explorer({ projectName, ref }: { projectName: string; ref?: Ref<{ focus(): void }> }) {
  const explorer = useExplorer();
  useImperativeHandle(ref, () => ({ focus: focusTree }), []);
  const onUploaded = useCallback(
    (folder: string) => {
      void explorer.refreshFolder(folder);
      if (folder) explorer.setExpanded(folder, true);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [explorer.refreshFolder, explorer.setExpanded],
  );
  return (
    <UploadsProvider projectId={explorer.projectId} onUploaded={onUploaded}>
      <ExplorerPane projectName={projectName} />
    </UploadsProvider>
  );
}

const focusTree = () =>
  requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-testid=file-tree]")?.focus());

function ExplorerPane({ projectName }: { projectName: string }) {
  const explorer = useExplorer();
  const uploads = useUploads();
  const tree = useTreeInput().tree;
  const [menu, setMenu] = useState<MenuState | null>(null);
  const [rootDrop, setRootDrop] = useState(false);

  const selectedType = (): EntryType | undefined =>
    explorer.selected === null
      ? undefined
      : (document.querySelector<HTMLElement>(`[data-tree-path="${CSS.escape(explorer.selected)}"]`)?.dataset
          .treeType as EntryType);
  const newEntry = (type: "file" | "directory") =>
    explorer.startCreate(type, explorer.targetFolder(selectedType(), explorer.selected));

  const writes = [
    { id: "explorer-new-file", label: "New file", run: () => newEntry("file"), takesFocus: true },
    { id: "explorer-new-folder", label: "New folder", run: () => newEntry("directory"), takesFocus: true },
    {
      id: "explorer-upload-files",
      label: "Upload files…",
      run: () => uploads.pick(explorer.targetFolder(selectedType(), explorer.selected), "files"),
    },
    {
      id: "explorer-upload-folder",
      label: "Upload a folder…",
      run: () => uploads.pick(explorer.targetFolder(selectedType(), explorer.selected), "folder"),
    },
  ];
  useCommands([
    ...(explorer.canWrite ? writes : []),
    { id: "explorer-focus", label: "Focus the explorer", run: focusTree, takesFocus: true },
    { id: "explorer-refresh", label: "Refresh the explorer", run: () => void explorer.refreshAll() },
    { id: "explorer-collapse", label: "Collapse all folders", run: explorer.collapseAll },
    {
      id: "explorer-ignored",
      label: explorer.showIgnored ? "Hide ignored files" : "Show ignored files",
      run: () => explorer.setShowIgnored(!explorer.showIgnored),
    },
    {
      id: "explorer-download-project",
      label: "Download the project as a zip",
      run: () => downloadFromProject(explorer.projectId, "", tree),
    },
  ]);

  const openMenu: ContextMenuRequest = (event, entry) => {
    event.preventDefault();
    event.stopPropagation();
    if (entry) explorer.setSelected(entry.path);
    setMenu({ x: event.clientX, y: event.clientY, entry });
  };

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if ((event.target as HTMLElement).tagName === "INPUT") return;
    const rows = [...event.currentTarget.querySelectorAll<HTMLElement>("[data-tree-path]")];
    const index = rows.findIndex((row) => row.dataset.treePath === explorer.selected);
    const current = rows[index];
    const path = current?.dataset.treePath;
    const type = current?.dataset.treeType as EntryType | undefined;
    const select = (row: HTMLElement | undefined) => {
      if (!row) return;
      explorer.setSelected(row.dataset.treePath!);
      row.scrollIntoView({ block: "nearest" });
    };
    const handled = () => event.preventDefault();

    switch (event.key) {
      case "ArrowDown":
        handled();
        return select(rows[index + 1] ?? (index < 0 ? rows[0] : undefined));
      case "ArrowUp":
        handled();
        return select(index < 0 ? rows[rows.length - 1] : rows[index - 1]);
      case "Home":
        handled();
        return select(rows[0]);
      case "End":
        handled();
        return select(rows[rows.length - 1]);
    }
    if (!path) return;
    const open = explorer.expanded.has(path);
    switch (event.key) {
      case "ArrowRight":
        handled();
        if (type === "directory" && !open) explorer.setExpanded(path, true);
        else if (type === "directory") select(rows[index + 1]);
        return;
      case "ArrowLeft":
        handled();
        if (type === "directory" && open) explorer.setExpanded(path, false);
        else select(rows.find((row) => row.dataset.treePath === parentOf(path)));
        return;
      case "Enter":
        handled();
        if (type === "directory") explorer.setExpanded(path, !open);
        else explorer.openFile(path);
        return;
      case "F2":
        handled();
        return explorer.setRenaming(path);
      case "Delete":
      case "Backspace": // Cmd+Backspace on macOS
        if (event.key === "Backspace" && !event.metaKey) return;
        handled();
        return explorer.requestDelete(path, type ?? "file");
    }
  }

  return (
    <div className="pane explorer" data-testid="explorer">
      <div className="pane-header">
        {/* The tab above names the view; here, as in VS Code, the folder it shows. */}
        <span
          title={projectName}
          style={{ overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" }}
          data-testid="explorer-title"
        >
          {projectName}
        </span>
        <span className="spacer" />
        {explorer.canWrite && (
          <>
            <button
              type="button"
              className="icon-btn explorer-action"
              title="New File"
              aria-label="New File"
              onClick={() => newEntry("file")}
              data-testid="explorer-new-file"
            >
              <NewFileIcon />
            </button>
            <button
              type="button"
              className="icon-btn explorer-action"
              title="New Folder"
              aria-label="New Folder"
              onClick={() => newEntry("directory")}
              data-testid="explorer-new-folder"
            >
              <NewFolderIcon />
            </button>
          </>
        )}
        <button
          type="button"
          className="icon-btn explorer-action"
          title="Refresh"
          aria-label="Refresh"
          onClick={() => void explorer.refreshAll()}
          data-testid="explorer-refresh"
        >
          <RefreshIcon />
        </button>
        <button
          type="button"
          className="icon-btn explorer-action"
          title="Collapse Folders"
          aria-label="Collapse Folders"
          onClick={explorer.collapseAll}
        >
          <CollapseIcon />
        </button>
        <button
          type="button"
          className="icon-btn explorer-action"
          title={explorer.showIgnored ? "Hide ignored files" : "Show ignored files"}
          aria-label="Show ignored files"
          aria-pressed={explorer.showIgnored}
          onClick={() => explorer.setShowIgnored(!explorer.showIgnored)}
          data-testid="explorer-toggle-ignored"
        >
          <EyeIcon />
        </button>
      </div>
      {explorer.error && (
        <div className="banner banner-warning" role="alert" data-testid="explorer-error">
          <span className="banner-text">{explorer.error}</span>
        </div>
      )}
      <div
        className={rootDrop ? "tree drop-target-root" : "tree"}
        role="tree"
        aria-label="Files"
        tabIndex={0}
        data-testid="file-tree"
        onKeyDown={onKeyDown}
        onContextMenu={(event) => openMenu(event, null)}
        onDragOver={(event) => {
          if (!explorer.canWrite) return;
          if (!event.dataTransfer.types.includes(DRAG_TYPE) && !isFileDrag(event.dataTransfer)) return;
          event.preventDefault();
          setRootDrop(true);
        }}
        onDragLeave={() => setRootDrop(false)}
        onDrop={(event) => {
          setRootDrop(false);
          if (!explorer.canWrite) return;
          if (isFileDrag(event.dataTransfer)) {
            event.preventDefault();
            void readDrop(event.dataTransfer).then((items) => uploads.upload(items, ""));
            return;
          }
          const from = event.dataTransfer.getData(DRAG_TYPE);
          if (from) explorer.moveInto(from, "");
        }}
      >
        <TreeFolder path="" depth={0} onContextMenu={openMenu} />
      </div>
      <UploadProgress />
      {menu && <ContextMenu menu={menu} onClose={() => setMenu(null)} />}
      {explorer.deleting && (
        <ConfirmDialog
          title={`Delete ${baseName(explorer.deleting.path)}?`}
          confirmLabel="Delete"
          danger
          busy={explorer.deletePending}
          onCancel={explorer.cancelDelete}
          onConfirm={explorer.confirmDelete}
        >
          {explorer.deleting.type === "directory"
            ? `The folder ${explorer.deleting.path} and everything in it will be deleted.`
            : `${explorer.deleting.path} will be deleted.`}{" "}
          This cannot be undone.
        </ConfirmDialog>
      )}
    </div>
  );
}
