"use client";

import { createContext, useContext, useState, useSyncExternalStore, type ReactNode } from "react";
import type { ConfiguredLanguageServer, EditorProblem } from "@/lib/language-protocol";
import { useTRPCClient } from "@/components/trpc-provider";
import { useTreeInput } from "@/components/ui/tree-context";

// What the IDE knows of its project's language servers without Monaco loaded: the problems they
// report (the one source of the Problems panel and the status bar) and the write path for renames. The client
// that talks to the servers (language-client.ts) loads with Monaco and fills this in.

export type WorkspaceSymbol = {
  name: string;
  kind: string;
  container?: string;
  path: string;
  line: number;
  column: number;
};

export class LanguageSession {
  private problems = new Map<string, EditorProblem[]>();
  private snapshot: EditorProblem[] = [];
  private listeners = new Set<() => void>();
  /** Set by the language client once Monaco has loaded; the workspace symbol search asks it. */
  searchSymbols: ((query: string) => Promise<WorkspaceSymbol[]>) | null = null;
  /** Set by the workspace symbol search while it is mounted: Ctrl/Cmd+T in the editor opens it. */
  showSymbolSearch: (() => void) | null = null;
  /** Set by the editor: opens a file at a position (Problems panel, workspace symbols). */
  reveal: ((path: string, line: number, column: number) => void) | null = null;

  constructor(
    readonly projectId: string,
    /** The session's worktree the IDE shows (its own language servers); undefined: the main tree. */
    readonly tree: string | undefined,
    readonly canWrite: boolean,
    readonly rename: (input: { path: string; line: number; column: number; newName: string }) => Promise<unknown>,
    /** A file's saved text, for previews of files no tab has open (peek views); null when it is not text. */
    readonly readText: (path: string) => Promise<string | null>,
    /** The servers the project's configuration adds, with the files they serve (the editor connects to them too). */
    readonly configuredServers: () => Promise<ConfiguredLanguageServer[]>,
  ) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getSnapshot = () => this.snapshot;

  /**
   * What a language server last reported for `path`, open or not. Problems are its errors and
   * warnings; infos and hints stay squiggles in the editor (VS Code's Problems count), so the
   * status bar, the panel's count and its list are the same set.
   */
  setProblems(path: string, reported: EditorProblem[]) {
    const problems = reported.filter((p) => p.severity === "error" || p.severity === "warning");
    if (problems.length === 0 && !this.problems.has(path)) return;
    if (problems.length === 0) this.problems.delete(path);
    else this.problems.set(path, problems);
    const order = { error: 0, warning: 1, info: 2, hint: 3 };
    this.snapshot = [...this.problems.values()]
      .flat()
      .sort((a, b) => order[a.severity] - order[b.severity] || a.path.localeCompare(b.path) || a.line - b.line);
    for (const listener of this.listeners) listener();
  }
}

const LanguageContext = createContext<LanguageSession | null>(null);

export function LanguageProvider({
  projectId,
  canWrite,
  children,
}: {
  projectId: string;
  canWrite: boolean;
  children: ReactNode;
}) {
  const client = useTRPCClient();
  // The tree shown: ide-view.tsx keys this provider by it, so another tree is another session.
  const tree = useTreeInput();
  const [session] = useState(
    () =>
      new LanguageSession(
        projectId,
        tree.tree,
        canWrite,
        (input) => client.language.rename.mutate({ projectId, ...tree, ...input }),
        async (path) => {
          const file = await client.fs.read.query({ projectId, ...tree, path });
          return file.kind === "text" ? file.content : null;
        },
        () => client.language.configured.query({ projectId, ...tree }),
      ),
  );
  return <LanguageContext.Provider value={session}>{children}</LanguageContext.Provider>;
}

/** The project's language session; null where there is none (share-link pages). */
export function useLanguageSession(): LanguageSession | null {
  return useContext(LanguageContext);
}

const NO_PROBLEMS: EditorProblem[] = [];
const noSubscribe = () => () => {};

export function useProblems(): EditorProblem[] {
  const session = useLanguageSession();
  return useSyncExternalStore(
    session?.subscribe ?? noSubscribe,
    session?.getSnapshot ?? (() => NO_PROBLEMS),
    () => NO_PROBLEMS,
  );
}
