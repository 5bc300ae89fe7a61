"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { createContext, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { useBuffersState, useOpenTabs, useTabsState } from "@/components/editor/open-files-context";
import { baseName, isWithin, joinPath, parentOf } from "@/components/ui/paths";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { useTreeInput } from "@/components/ui/tree-context";
import { useOpenFilesPresence } from "@/components/explorer/open-by";
import { SHOW_IGNORED_STORAGE } from "@/lib/first-screen";

export type EntryType = "file" | "directory" | "symlink";
export type Creating = { parent: string; type: "file" | "directory" } | null;

function useStoredState<T>(key: string, initial: T) {
  const [value, setValue] = useState<T>(() => {
    if (typeof window === "undefined") return initial;
    try {
      const stored = window.localStorage.getItem(key);
      return stored === null ? initial : (JSON.parse(stored) as T);
    } catch {
      return initial;
    }
  });
  useEffect(() => {
    window.localStorage.setItem(key, JSON.stringify(value));
  }, [key, value]);
  return [value, setValue] as const;
}

/** One folder's entries, as the tree asks for them; `tree`: the project's tree shown (useTreeInput). */
export const folderQuery = (
  trpc: ReturnType<typeof useTRPC>,
  projectId: string,
  path: string,
  showIgnored: boolean,
  tree: { tree?: string },
) => trpc.fs.tree.queryOptions({ projectId, ...tree, path, showIgnored }, { staleTime: 30_000 });

/**
 * Explorer state (expanded folders, selection, inline editing) and the file operations. A viewer
 * (`canWrite` false) gets none of the operations that change files: the UI does not offer them.
 */
function useExplorerModel(projectId: string, canWrite: boolean) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tree = useTreeInput();
  const files = useOpenTabs();
  const [showIgnored, setShowIgnored] = useStoredState<boolean>(SHOW_IGNORED_STORAGE.key, SHOW_IGNORED_STORAGE.initial);
  const [expandedList, setExpandedList] = useStoredState<string[]>(`tandem.explorer.expanded.${projectId}`, []);
  const expanded = useMemo(() => new Set(expandedList), [expandedList]);
  const [selected, setSelected] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [creating, setCreating] = useState<Creating>(null);
  const [deleting, setDeleting] = useState<{ path: string; type: EntryType } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const setExpanded = useCallback(
    (path: string, open: boolean) =>
      setExpandedList((list) =>
        open ? (list.includes(path) ? list : [...list, path]) : list.filter((p) => !isWithin(p, path)),
      ),
    [setExpandedList],
  );

  // The selection follows the active tab, with the folders above it opened, as in VS Code; open
  // files with unsaved changes are marked in the tree.
  const { active } = useTabsState();
  const buffers = useBuffersState();
  useEffect(() => {
    if (!active) return;
    setSelected(active);
    const folders: string[] = [];
    for (let folder = parentOf(active); folder; folder = parentOf(folder)) folders.push(folder);
    if (folders.length) setExpandedList((list) => [...list, ...folders.filter((f) => !list.includes(f))]);
  }, [active, setExpandedList]);
  const unsaved = useMemo(() => new Set([...buffers.values()].filter((f) => f.dirty).map((f) => f.path)), [buffers]);
  const openBy = useOpenFilesPresence(projectId, !tree.tree);

  // The root folder is asked for with the project, before the tree is on screen (see IdeView).
  useEffect(() => {
    const root = folderQuery(trpc, projectId, "", showIgnored, tree);
    // Not asked again when the first screen's answer was a refusal (a project the person may not open).
    if (queryClient.getQueryState(root.queryKey)?.status !== "error") void queryClient.prefetchQuery(root);
    // Only the first: later changes are the tree's own queries.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [queryClient, trpc, projectId]);

  const refreshFolder = useCallback(
    (path: string) => queryClient.invalidateQueries(trpc.fs.tree.queryFilter({ projectId, path })),
    [queryClient, trpc, projectId],
  );

  const onError = (e: unknown) => setError(errorMessage(e));
  const create = useMutation(trpc.fs.create.mutationOptions({ onError }));
  const mkdir = useMutation(trpc.fs.mkdir.mutationOptions({ onError }));
  const rename = useMutation(trpc.fs.rename.mutationOptions({ onError }));
  const remove = useMutation(trpc.fs.delete.mutationOptions({ onError }));

  useEffect(() => {
    if (!error) return;
    const timer = setTimeout(() => setError(null), 6000);
    return () => clearTimeout(timer);
  }, [error]);

  /** Where "New File" goes: into the selected folder, or beside the selected file. */
  const targetFolder = (type: EntryType | undefined, path: string | null) =>
    path === null ? "" : type === "directory" ? path : parentOf(path);

  async function commitCreate(name: string) {
    if (!creating) return;
    const path = joinPath(creating.parent, name);
    setCreating(null);
    setError(null);
    if (creating.type === "file") {
      await create.mutateAsync({ projectId, ...tree, path, content: "" });
      void files.open(path);
    } else {
      await mkdir.mutateAsync({ projectId, ...tree, path });
      setExpanded(path, true);
    }
    setSelected(path);
    await refreshFolder(creating.parent);
  }

  async function move(from: string, to: string) {
    if (from === to) return;
    setError(null);
    await rename.mutateAsync({ projectId, ...tree, from, to });
    files.renamed(from, to);
    setExpandedList((list) => list.map((p) => (isWithin(p, from) ? to + p.slice(from.length) : p)));
    setSelected(to);
    await Promise.all([refreshFolder(parentOf(from)), refreshFolder(parentOf(to))]);
  }

  async function commitRename(from: string, name: string) {
    setRenaming(null);
    if (name === baseName(from)) return;
    await move(from, joinPath(parentOf(from), name));
  }

  async function moveInto(from: string, folder: string) {
    if (isWithin(folder, from) || parentOf(from) === folder) return;
    await move(from, joinPath(folder, baseName(from)));
    if (folder) setExpanded(folder, true);
  }

  async function confirmDelete() {
    if (!deleting) return;
    await remove.mutateAsync({ projectId, ...tree, path: deleting.path });
    files.closeUnder(deleting.path);
    if (selected && isWithin(selected, deleting.path)) setSelected(null);
    setDeleting(null);
    await refreshFolder(parentOf(deleting.path));
  }

  const swallow = (promise: Promise<unknown>) => void promise.catch(() => undefined);

  return {
    projectId,
    canWrite,
    showIgnored,
    setShowIgnored,
    expanded,
    setExpanded,
    collapseAll: () => setExpandedList([]),
    selected,
    setSelected,
    unsaved,
    openBy,
    renaming,
    setRenaming: (path: string | null) => setRenaming(canWrite ? path : null),
    creating,
    startCreate: (type: "file" | "directory", folder: string) => {
      if (!canWrite) return;
      if (folder) setExpanded(folder, true);
      setRenaming(null);
      setCreating({ parent: folder, type });
    },
    cancelCreate: () => setCreating(null),
    targetFolder,
    commitCreate: (name: string) => swallow(commitCreate(name)),
    commitRename: (from: string, name: string) => swallow(commitRename(from, name)),
    moveInto: (from: string, folder: string) => canWrite && swallow(moveInto(from, folder)),
    deleting,
    requestDelete: (path: string, type: EntryType) => canWrite && setDeleting({ path, type }),
    cancelDelete: () => setDeleting(null),
    confirmDelete: () => swallow(confirmDelete()),
    deletePending: remove.isPending,
    refreshFolder,
    refreshAll: () => queryClient.invalidateQueries(trpc.fs.tree.queryFilter({ projectId })),
    openFile: (path: string) => void files.open(path),
    error,
  };
}

export type ExplorerModel = ReturnType<typeof useExplorerModel>;

const ExplorerContext = createContext<ExplorerModel | null>(null);

export function ExplorerProvider({
  projectId,
  canWrite,
  children,
}: {
  projectId: string;
  canWrite: boolean;
  children: React.ReactNode;
}) {
  const model = useExplorerModel(projectId, canWrite);
  return <ExplorerContext.Provider value={model}>{children}</ExplorerContext.Provider>;
}

export function useExplorer(): ExplorerModel {
  const model = useContext(ExplorerContext);
  if (!model) throw new Error("useExplorer must be used inside <ExplorerProvider>");
  return model;
}
