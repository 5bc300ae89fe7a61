"use client";

import { createContext, useContext, type ReactNode } from "react";
import { MAIN_TREE } from "@/lib/trees";

// Which of the project's trees the IDE shows (lib/trees.ts): "main", or the id of the session whose
// worktree it is, as the page's `?tree=` names it. The explorer, the editor, quick open, search,
// file watching and new terminals pass it to the workspace procedures with `useTreeInput`.

const TreeContext = createContext<string>(MAIN_TREE);

export function TreeProvider({ tree, children }: { tree: string; children: ReactNode }) {
  return <TreeContext.Provider value={tree}>{children}</TreeContext.Provider>;
}

export const useTree = () => useContext(TreeContext);

/** What to add to a workspace procedure's input: nothing for the main tree (as before trees), else `{ tree }`. */
export function useTreeInput(): { tree?: string } {
  const tree = useTree();
  return tree === MAIN_TREE ? {} : { tree };
}
