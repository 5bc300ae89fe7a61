"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useGit } from "@/components/git/git-context";
import { useTRPC } from "@/components/trpc-provider";
import { Dialog } from "@/components/ui/dialog";
import { errorMessage } from "@/components/ui/error-message";

/** The current branch; a click lists branches to switch to, or makes a new one. */
export function BranchPicker() {
  const git = useGit();
  const [open, setOpen] = useState(false);
  const status = git.status.data;
  const branch = status?.repository ? (status.branch ?? "(detached)") : "";
  return (
    <>
      <button
        type="button"
        className="btn btn-sm btn-ghost scm-branch"
        onClick={() => setOpen(true)}
        disabled={!git.onMain}
        title={git.onMain ? "Switch or create a branch" : "A session's worktree stays on its own branch"}
        data-testid="scm-branch"
      >
        ⎇ {branch}
      </button>
      {open && <BranchDialog onClose={() => setOpen(false)} />}
    </>
  );
}

function BranchDialog({ onClose }: { onClose: () => void }) {
  const trpc = useTRPC();
  const git = useGit();
  const branches = useQuery(trpc.git.branches.queryOptions(git.scope));
  const [name, setName] = useState("");
  const done = { onSuccess: () => onClose(), onSettled: () => git.refresh() };
  const create = useMutation(trpc.git.createBranch.mutationOptions(done));
  const switchTo = useMutation(trpc.git.switchBranch.mutationOptions(done));
  const error = create.error ?? switchTo.error;
  const local = branches.data?.filter((b) => !b.remote) ?? [];
  const remote = branches.data?.filter((b) => b.remote && !local.some((l) => `origin/${l.name}` === b.name)) ?? [];
  return (
    <Dialog title="Branches" onClose={onClose} testId="branch-dialog">
      {git.canWrite && (
        <form
          className="row"
          onSubmit={(event) => {
            event.preventDefault();
            if (name.trim()) create.mutate({ ...git.scope, name: name.trim(), switchTo: true });
          }}
        >
          <input
            className="input"
            placeholder="New branch name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="branch-new-name"
            autoFocus
          />
          <button
            className="btn btn-primary"
            type="submit"
            disabled={!name.trim() || create.isPending}
            data-testid="branch-create"
          >
            Create and switch
          </button>
        </form>
      )}
      {error && (
        <div className="error-text" role="alert" data-testid="branch-error" style={{ whiteSpace: "pre-wrap" }}>
          {errorMessage(error)}
        </div>
      )}
      <ul className="branch-list">
        {[...local, ...remote].map((b) => (
          <li key={`${b.remote}:${b.name}`}>
            <button
              type="button"
              className="btn btn-ghost branch-item"
              disabled={b.current || !git.canWrite || switchTo.isPending}
              onClick={() =>
                switchTo.mutate({ ...git.scope, name: b.remote ? b.name.replace(/^origin\//, "") : b.name })
              }
              data-testid={`branch-${b.name}`}
            >
              {b.current ? "● " : ""}
              {b.name}
              {b.upstream && <span className="hint"> → {b.upstream}</span>}
              {b.remote && <span className="hint"> (remote)</span>}
            </button>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
