"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";

// Where a new session works (docs/git.md): in the project's main tree (quick questions, small
// fixes), or on a new branch in a worktree of its own. A project that is not a git repository
// (or has no commit) offers the main tree only, and says why. The choice is remembered per project.

export type TreeChoiceValue = { kind: "main" } | { kind: "branch"; branch: string; base: string };

const key = (projectId: string) => `tandem.newSessionTree.${projectId}`;

export function useTreeChoice(projectId: string) {
  const trpc = useTRPC();
  const options = useQuery(trpc.tree.options.queryOptions({ projectId }));
  const [kind, setKindState] = useState<"main" | "branch">(() =>
    typeof window !== "undefined" && window.localStorage.getItem(key(projectId)) === "branch" ? "branch" : "main",
  );
  const [branch, setBranch] = useState("");
  const [base, setBase] = useState<string | null>(null);
  const repository = options.data?.repository === true ? options.data : null;
  const chosenBase = base ?? repository?.current ?? repository?.branches[0] ?? "";
  const setKind = (next: "main" | "branch") => {
    setKindState(next);
    window.localStorage.setItem(key(projectId), next);
  };
  const value: TreeChoiceValue =
    repository && kind === "branch" ? { kind: "branch", branch: branch.trim(), base: chosenBase } : { kind: "main" };
  return { options, repository, kind, setKind, branch, setBranch, base: chosenBase, setBase, value };
}

export function TreeChoice({ choice }: { choice: ReturnType<typeof useTreeChoice> }) {
  const { options, repository } = choice;
  if (options.isPending) return null;
  if (!repository)
    return (
      <div className="tree-choice hint" data-testid="tree-choice-main-only">
        {options.data && !options.data.repository ? options.data.reason : null}
      </div>
    );
  return (
    <fieldset className="tree-choice" data-testid="tree-choice" aria-label="Where the session works">
      <label>
        <input
          type="radio"
          name="tree-choice"
          checked={choice.kind === "branch"}
          onChange={() => choice.setKind("branch")}
          data-testid="tree-choice-branch"
        />
        On a new branch
      </label>
      <label>
        <input
          type="radio"
          name="tree-choice"
          checked={choice.kind === "main"}
          onChange={() => choice.setKind("main")}
          data-testid="tree-choice-main"
        />
        In the main tree
      </label>
      {choice.kind === "branch" && (
        <span className="tree-choice-branch">
          <input
            className="input"
            value={choice.branch}
            onChange={(e) => choice.setBranch(e.target.value)}
            placeholder="tandem/<short title>"
            aria-label="Branch name"
            data-testid="tree-choice-branch-name"
            maxLength={200}
          />
          <span>from</span>
          <select
            className="input"
            value={choice.base}
            onChange={(e) => choice.setBase(e.target.value)}
            aria-label="Base branch"
            data-testid="tree-choice-base"
          >
            {repository.branches.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </span>
      )}
    </fieldset>
  );
}
