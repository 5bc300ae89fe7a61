"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type ComponentType } from "react";
import { GitCredentials } from "@/components/git/git-credentials";
import { CloneForm } from "@/components/projects/clone-form";
import { UploadProjectForm } from "@/components/projects/upload-project-form";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/** The ways to start a project, one tab each; each way is a form that creates the project in `teamId`. */
const WAYS: { id: string; label: string; Form: ComponentType<{ teamId?: string }> }[] = [
  { id: "empty", label: "Empty", Form: EmptyProjectForm },
  { id: "git", label: "From a git URL", Form: GitUrlProjectForm },
  { id: "upload", label: "Upload a folder or zip", Form: UploadProjectForm },
];

/** New project: in `teamId` (the user's personal team when absent). */
export function CreateProjectForm({ teamId }: { teamId?: string }) {
  const [way, setWay] = useState(WAYS[0]!.id);
  const { Form } = WAYS.find((w) => w.id === way) ?? WAYS[0]!;
  return (
    <section className="card stack" aria-label="New project" data-testid="create-project-form">
      <div className="way-tabs" role="tablist" aria-label="How to start the project">
        <span className="way-title">New project</span>
        {WAYS.map((w) => (
          <button
            key={w.id}
            type="button"
            role="tab"
            className="way-tab"
            aria-selected={way === w.id}
            onClick={() => setWay(w.id)}
            data-testid={`new-project-way-${w.id}`}
          >
            {w.label}
          </button>
        ))}
      </div>
      <Form teamId={teamId} />
    </section>
  );
}

/** A clone of a git repository, with the person's own tokens beside it (where they are stored and removed). */
function GitUrlProjectForm({ teamId }: { teamId?: string }) {
  return (
    <>
      <CloneForm teamId={teamId} />
      <GitCredentials scope={{ kind: "user" }} />
    </>
  );
}

function EmptyProjectForm({ teamId }: { teamId?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [name, setName] = useState("");
  const [importPath, setImportPath] = useState("");
  const [advanced, setAdvanced] = useState(false);
  const create = useMutation(
    trpc.project.create.mutationOptions({
      onSuccess: (project) => {
        void queryClient.invalidateQueries(trpc.project.list.queryFilter());
        router.push(`/p/${project.id}`);
      },
    }),
  );

  return (
    <form
      className="stack"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate({ name, importPath: importPath.trim() || undefined, teamId });
      }}
    >
      <div className="row">
        <input
          className="input"
          placeholder="New project name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-label="Project name"
          data-testid="new-project-name"
          required
        />
        <button
          className="btn btn-primary"
          type="submit"
          disabled={create.isPending || !name.trim()}
          data-testid="create-project"
          title={name.trim() ? undefined : "Give the project a name first"}
        >
          {create.isPending ? "Creating…" : "Create project"}
        </button>
      </div>
      <div>
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={() => setAdvanced(!advanced)}
          aria-expanded={advanced}
        >
          {advanced ? "▾" : "▸"} Advanced
        </button>
      </div>
      {advanced && (
        <label className="field">
          <span>Import from a folder on the server (optional)</span>
          <input
            className="input"
            placeholder="/srv/code/my-app"
            value={importPath}
            onChange={(event) => setImportPath(event.target.value)}
            data-testid="new-project-import"
          />
          <small className="hint">
            The folder is copied into the new project. An admin chooses which folders may be imported.
          </small>
        </label>
      )}
      {create.error && <div className="error-text">{errorMessage(create.error)}</div>}
    </form>
  );
}
