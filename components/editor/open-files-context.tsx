"use client";

import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from "react";
import type { FileApi } from "@/components/editor/file-buffer";
import { FileBuffers } from "@/components/editor/file-buffers";
import { OpenTabs } from "@/components/editor/open-tabs";
import { tabsRestoring } from "@/components/editor/restored-focus";
import { localTabMemory } from "@/components/editor/tab-memory";
import { useQueryClient } from "@tanstack/react-query";
import { useTRPC, useTRPCClient } from "@/components/trpc-provider";
import { useTreeInput } from "@/components/ui/tree-context";
import { liveDocSocketUrl } from "@/lib/live-doc-protocol";

type OpenFiles = { tabs: OpenTabs; buffers: FileBuffers };

const OpenFilesContext = createContext<OpenFiles | null>(null);

/**
 * The project's open files, or (share-link pages) whatever `api` reads: the tabs (open-tabs.ts)
 * and the files' buffers (file-buffers.ts). A project's tabs are remembered in this browser and
 * reopened when the IDE comes back (a reload, a visit to settings).
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
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tree = useTreeInput();
  const [value] = useState(() => {
    const buffers = new FileBuffers(
      api ?? {
        read: (path) => client.fs.read.query({ projectId, ...tree, path }),
        write: (path, content, expectedVersion) =>
          client.fs.write.mutate({ projectId, ...tree, path, content, expectedVersion }),
        // Live documents are the main tree's; a session's tree opens its files the plain way.
        live: tree.tree
          ? undefined
          : async (path) => {
              const { LiveDocConnection } = await import("@/lib/live-doc-connection");
              return new LiveDocConnection(
                liveDocSocketUrl(window.location, projectId, path),
                (url) => new WebSocket(url),
              );
            },
        // Through the query cache: the page's first request asked already for the remembered
        // active tab's (lib/first-screen.ts). Dropped once read: the buffer keeps the text.
        preview: async (path) => {
          const options = trpc.fs.preview.queryOptions({ projectId, ...tree, path });
          try {
            // The first request's refusal (a file deleted since) is not asked for again.
            if (queryClient.getQueryState(options.queryKey)?.status === "error") return null;
            return (await queryClient.fetchQuery({ ...options, retry: false }))?.content ?? null;
          } catch {
            return null; // gone or refused: the editor shows what the normal read says
          } finally {
            queryClient.removeQueries({ queryKey: options.queryKey, exact: true });
          }
        },
      },
    );
    return { buffers, tabs: new OpenTabs(buffers, api ? null : localTabMemory(projectId)) };
  });
  useEffect(() => {
    tabsRestoring();
    void value.tabs.restore();
  }, [value]);
  return <OpenFilesContext.Provider value={value}>{children}</OpenFilesContext.Provider>;
}

function useOpenFiles(): OpenFiles {
  const value = useContext(OpenFilesContext);
  if (!value) throw new Error("The open files are only known inside <OpenFilesProvider>");
  return value;
}

/** The editor's tabs: open, show, close, rename files; the Changes and diff tabs. */
export const useOpenTabs = (): OpenTabs => useOpenFiles().tabs;

/** The open files' contents: save, reload, merge, conflicts with the disk. */
export const useFileBuffers = (): FileBuffers => useOpenFiles().buffers;

/** The tabs and the active one; re-renders when they change. */
export function useTabsState() {
  const tabs = useOpenTabs();
  return useSyncExternalStore(tabs.subscribe, tabs.getSnapshot, tabs.getSnapshot);
}

/** Every open file's buffer by path; re-renders when any changes (dirty, saving, a conflict). */
export function useBuffersState() {
  const buffers = useFileBuffers();
  return useSyncExternalStore(buffers.subscribe, buffers.getSnapshot, buffers.getSnapshot);
}
