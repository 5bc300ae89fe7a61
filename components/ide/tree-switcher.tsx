"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { MAIN_TREE } from "@/lib/trees";
import { useTRPC } from "@/components/trpc-provider";
import { useTree } from "@/components/ui/tree-context";

// The IDE header's tree switcher: the project's main tree, or a session's branch (with who started
// it). The choice is the page's `?tree=` parameter, so a link opens the same tree; the explorer,
// the editor, quick open, search, file watching and new terminals follow it (ide-view.tsx).

export function TreeSwitcher({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const tree = useTree();
  const trees = useQuery(trpc.tree.list.queryOptions({ projectId }, { refetchInterval: 10_000 }));
  const open = (trees.data ?? []).filter((t) => t.state !== "discarded");
  if (open.length === 0 && tree === MAIN_TREE) return null;
  const choose = (next: string) => {
    const url = new URL(window.location.href);
    if (next === MAIN_TREE) url.searchParams.delete("tree");
    else url.searchParams.set("tree", next);
    router.replace(`${url.pathname}${url.search}`);
  };
  return (
    <select
      className="input tree-switcher"
      value={tree}
      onChange={(e) => choose(e.target.value)}
      aria-label="The tree the IDE shows"
      title="The tree the explorer, editor, search and new terminals show"
      data-testid="tree-switcher"
    >
      <option value={MAIN_TREE}>main tree</option>
      {open.map((t) => (
        <option key={t.sessionId} value={t.sessionId}>
          ⎇ {t.branch}
          {t.author ? ` · ${t.author.name}` : ""}
        </option>
      ))}
      {tree !== MAIN_TREE && !open.some((t) => t.sessionId === tree) && <option value={tree}>(unknown tree)</option>}
    </select>
  );
}
