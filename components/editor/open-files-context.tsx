"use client";

import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from "react";
import { OpenFilesStore, type FileApi } from "@/components/editor/open-files-store";
import { localTabMemory } from "@/components/editor/tab-memory";
import { useTRPCClient } from "@/components/trpc-provider";

const OpenFilesContext = createContext<OpenFilesStore | null>(null);

/**
 * The project's files, or (share-link pages) whatever `api` reads. A project's tabs are
 * remembered in this browser and reopened when the IDE comes back (a reload, a visit to settings).
 */
export function OpenFilesProvider({
  projectId,
  api,
  children,
}: {
  projectId: string;
  api?: FileApi;
  children: ReactNode;
}) {
  const client = useTRPCClient();
  const [store] = useState(
    () =>
      new OpenFilesStore(
        api ?? {
          read: (path) => client.fs.read.query({ projectId, path }),
          write: (path, content, expectedVersion) =>
            client.fs.write.mutate({ projectId, path, content, expectedVersion }),
        },
        api ? null : localTabMemory(projectId),
      ),
  );
  useEffect(() => void store.restore(), [store]);
  return <OpenFilesContext.Provider value={store}>{children}</OpenFilesContext.Provider>;
}

export function useOpenFilesStore(): OpenFilesStore {
  const store = useContext(OpenFilesContext);
  if (!store) throw new Error("useOpenFilesStore must be used inside <OpenFilesProvider>");
  return store;
}

/** The open tabs and the active one; re-renders when either changes. */
export function useOpenFiles() {
  const store = useOpenFilesStore();
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}
