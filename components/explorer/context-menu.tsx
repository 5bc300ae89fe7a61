"use client";

import { useEffect, useRef } from "react";
import { useExplorer } from "@/components/explorer/explorer-context";
import { useUploads } from "@/components/explorer/uploads";
import { useTreeInput } from "@/components/ui/tree-context";
import type { FileEntry } from "@/lib/fs-schemas";

export type MenuState = { x: number; y: number; entry: FileEntry | null };

/** Downloads a file as is, or a folder ("" for the whole tree) as a zip the server streams; `tree`: a session's worktree. */
export function downloadFromProject(projectId: string, path: string, tree?: string) {
  const link = document.createElement("a");
  link.href = `/api/projects/${projectId}/download?${new URLSearchParams({ path, ...(tree ? { tree } : {}) })}`;
  link.download = "";
  link.click();
}

export function ContextMenu({ menu, onClose }: { menu: MenuState; onClose: () => void }) {
  const explorer = useExplorer();
  const uploads = useUploads();
  const tree = useTreeInput().tree;
  const ref = useRef<HTMLDivElement>(null);
  const { entry } = menu;
  const folder = explorer.targetFolder(entry?.type, entry?.path ?? null);

  useEffect(() => {
    ref.current?.querySelector("button")?.focus();
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === "Escape" : !ref.current?.contains(event.target as Node))
        onClose();
    };
    window.addEventListener("mousedown", close);
    window.addEventListener("keydown", close);
    window.addEventListener("blur", onClose);
    return () => {
      window.removeEventListener("mousedown", close);
      window.removeEventListener("keydown", close);
      window.removeEventListener("blur", onClose);
    };
  }, [onClose]);

  const item = (label: string, run: () => void, hint?: string, testId?: string) => (
    <button
      type="button"
      className="menu-item"
      role="menuitem"
      data-testid={testId}
      onClick={() => {
        onClose();
        run();
      }}
    >
      {label}
      {hint && <span className="spacer" />}
      {hint && <span className="hint">{hint}</span>}
    </button>
  );

  // Keep the menu inside the window.
  const style = { left: Math.min(menu.x, window.innerWidth - 200), top: Math.min(menu.y, window.innerHeight - 280) };

  return (
    <div ref={ref} className="menu context-menu" role="menu" style={style} data-testid="context-menu">
      {explorer.canWrite && (
        <>
          {item("New File…", () => explorer.startCreate("file", folder), undefined, "menu-new-file")}
          {item("New Folder…", () => explorer.startCreate("directory", folder), undefined, "menu-new-folder")}
          {item("Upload Files…", () => uploads.pick(folder, "files"), undefined, "menu-upload-files")}
          {item("Upload Folder…", () => uploads.pick(folder, "folder"), undefined, "menu-upload-folder")}
        </>
      )}
      {!entry &&
        item(
          "Download Project as Zip",
          () => downloadFromProject(explorer.projectId, "", tree),
          undefined,
          "menu-download",
        )}
      {entry && (
        <>
          {explorer.canWrite && <div className="menu-separator" />}
          {entry.type === "file" && item("Open", () => explorer.openFile(entry.path))}
          {item("Copy Path", () => void navigator.clipboard?.writeText(entry.path))}
          {entry.type !== "symlink" &&
            item(
              entry.type === "directory" ? "Download as Zip" : "Download",
              () => downloadFromProject(explorer.projectId, entry.path, tree),
              undefined,
              "menu-download",
            )}
          {explorer.canWrite && item("Rename…", () => explorer.setRenaming(entry.path), "F2", "menu-rename")}
          {explorer.canWrite &&
            item("Delete", () => explorer.requestDelete(entry.path, entry.type), "Del", "menu-delete")}
        </>
      )}
    </div>
  );
}
