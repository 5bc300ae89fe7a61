"use client";

import { useEffect, useRef } from "react";
import { useExplorer } from "@/components/ide/explorer/explorer-context";
import type { FileEntry } from "@/lib/fs-schemas";

export type MenuState = { x: number; y: number; entry: FileEntry | null };

export function ContextMenu({ menu, onClose }: { menu: MenuState; onClose: () => void }) {
  const explorer = useExplorer();
  const ref = useRef<HTMLDivElement>(null);
  const { entry } = menu;
  const folder = explorer.targetFolder(entry?.type, entry?.path ?? null);

  useEffect(() => {
    ref.current?.querySelector("button")?.focus();
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === "Escape" : !ref.current?.contains(event.target as Node)) onClose();
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
  const style = { left: Math.min(menu.x, window.innerWidth - 200), top: Math.min(menu.y, window.innerHeight - 190) };

  return (
    <div ref={ref} className="menu context-menu" role="menu" style={style} data-testid="context-menu">
      {item("New File…", () => explorer.startCreate("file", folder), undefined, "menu-new-file")}
      {item("New Folder…", () => explorer.startCreate("directory", folder), undefined, "menu-new-folder")}
      {entry && (
        <>
          <div className="menu-separator" />
          {entry.type === "file" && item("Open", () => explorer.openFile(entry.path))}
          {item("Copy Path", () => void navigator.clipboard?.writeText(entry.path))}
          {item("Rename…", () => explorer.setRenaming(entry.path), "F2", "menu-rename")}
          {item("Delete", () => explorer.requestDelete(entry.path, entry.type), "Del", "menu-delete")}
        </>
      )}
    </div>
  );
}
