"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/** Creates a project in `teamId` (the user's personal team when absent). */
export function CreateProjectForm({ teamId }: { teamId?: string }) {
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
      className="card stack"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate({ name, importPath: importPath.trim() || undefined, teamId });
      }}
      data-testid="create-project-form"
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
        <button className="btn btn-primary" type="submit" disabled={create.isPending || !name.trim()} data-testid="create-project" title={name.trim() ? undefined : "Give the project a name first"}>
          {create.isPending ? "Creating…" : "Create project"}
        </button>
      </div>
      <div>
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => setAdvanced(!advanced)} aria-expanded={advanced}>
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
          <small className="hint">The folder is copied into the new project. An admin chooses which folders may be imported.</small>
        </label>
      )}
      {create.error && <div className="error-text">{errorMessage(create.error)}</div>}
    </form>
  );
}
