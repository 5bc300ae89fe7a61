"use client";

import { useQuery } from "@tanstack/react-query";
import { folderQuery, useExplorer } from "@/components/explorer/explorer-context";
import { NameInput } from "@/components/explorer/name-input";
import { TreeRow, type ContextMenuRequest } from "@/components/explorer/tree-row";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { useTreeInput } from "@/components/ui/tree-context";

const indent = (depth: number) => ({ paddingLeft: 8 + depth * 12 });

/** The entries of one folder, fetched when it is first shown; expanded sub-folders nest inside. */
type TreeFolderProps = { path: string; depth: number; onContextMenu: ContextMenuRequest };

export function TreeFolder({ path, depth, onContextMenu }: TreeFolderProps) {
  const trpc = useTRPC();
  const explorer = useExplorer();
  const { projectId, showIgnored, expanded, creating } = explorer;
  const entries = useQuery(folderQuery(trpc, projectId, path, showIgnored, useTreeInput()));

  const sorted = [...(entries.data?.entries ?? [])].sort((a, b) => {
    const dirA = a.type === "directory" ? 0 : 1;
    const dirB = b.type === "directory" ? 0 : 1;
    return dirA - dirB || a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: "base" });
  });

  return (
    <div role="group">
      {creating?.parent === path && (
        <div className="tree-row" style={indent(depth)}>
          <span className="twisty" />
          <NameInput
            initial=""
            placeholder={creating.type === "file" ? "File name" : "Folder name"}
            testId="new-entry-input"
            onCommit={explorer.commitCreate}
            onCancel={explorer.cancelCreate}
          />
        </div>
      )}
      {entries.isPending && (
        <div className="tree-message" style={indent(depth + 1)}>
          Loading…
        </div>
      )}
      {entries.error && (
        <div className="tree-message error" style={indent(depth + 1)}>
          {errorMessage(entries.error)}
        </div>
      )}
      {entries.data && sorted.length === 0 && depth === 0 && !creating && (
        <div
          className="tree-message explorer-empty"
          style={{ ...indent(0), height: "auto", padding: "8px 8px 8px 20px" }}
          data-testid="explorer-empty"
        >
          {explorer.canWrite
            ? "This project is empty. Create a file with the buttons above."
            : "This project is empty."}
        </div>
      )}
      {sorted.map((entry) => (
        <div key={entry.path}>
          <TreeRow entry={entry} depth={depth} onContextMenu={onContextMenu} />
          {entry.type === "directory" && expanded.has(entry.path) && (
            <TreeFolder path={entry.path} depth={depth + 1} onContextMenu={onContextMenu} />
          )}
        </div>
      ))}
    </div>
  );
}
