"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { CreateProjectForm } from "@/components/projects/create-project-form";
import { TeamBar } from "@/components/team/team-bar";
import { useCurrentTeam } from "@/components/team/use-current-team";
import { useTRPC } from "@/components/trpc-provider";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { errorMessage } from "@/components/ui/error-message";

type Project = { id: string; name: string; updatedAt: Date };

export function ProjectList() {
  const trpc = useTRPC();
  const { list: teams, current, choose } = useCurrentTeam();
  const projects = useQuery(trpc.project.list.queryOptions({ teamId: current?.id }, { enabled: !!current }));
  const [deleting, setDeleting] = useState<Project | null>(null);
  // Renaming and deleting a project are for the team's owners and admins (projectAdminProcedure).
  const manage = current?.role === "owner" || current?.role === "admin";

  return (
    <>
      <div className="row">
        <h1>Projects</h1>
      </div>
      <TeamBar teams={teams} current={current} onChoose={choose} />
      {/* Only once the team is known: a project created before would land in the personal team. */}
      {current && current.role !== "viewer" && <CreateProjectForm teamId={current.id} />}
      {projects.isPending ? (
        <p className="muted">Loading projects…</p>
      ) : projects.error ? (
        <div className="notice notice-error">{errorMessage(projects.error)}</div>
      ) : projects.data.length === 0 ? (
        <div className="card empty" data-testid="projects-empty">
          No projects yet. Create one above.
        </div>
      ) : (
        <ul className="project-list" data-testid="project-list">
          {projects.data.map((project) => (
            <ProjectRow key={project.id} project={project} onDelete={manage ? () => setDeleting(project) : null} />
          ))}
        </ul>
      )}
      {deleting && <DeleteProjectDialog project={deleting} onDone={() => setDeleting(null)} />}
    </>
  );
}

/** `onDelete` is null for someone who may not rename or delete the project: they see neither. */
function ProjectRow({ project, onDelete }: { project: Project; onDelete: (() => void) | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(project.name);
  const rename = useMutation(
    trpc.project.rename.mutationOptions({
      onSuccess: () => {
        setRenaming(false);
        void queryClient.invalidateQueries(trpc.project.list.queryFilter());
      },
    }),
  );

  return (
    <li className="project-row" data-testid={`project-${project.name}`}>
      {renaming ? (
        <form
          className="row"
          style={{ flex: 1 }}
          onSubmit={(event) => {
            event.preventDefault();
            rename.mutate({ projectId: project.id, name });
          }}
        >
          <input
            className="input"
            value={name}
            onChange={(event) => setName(event.target.value)}
            onKeyDown={(event) => event.key === "Escape" && setRenaming(false)}
            autoFocus
            aria-label="New project name"
            data-testid="project-rename-input"
          />
          <button className="btn btn-primary btn-sm" type="submit" disabled={rename.isPending}>
            Save
          </button>
          <button className="btn btn-sm" type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
          {rename.error && <span className="error-text">{errorMessage(rename.error)}</span>}
        </form>
      ) : (
        <>
          <div style={{ flex: 1, minWidth: 0 }}>
            <Link className="project-name" href={`/p/${project.id}`} data-testid="project-open">
              {project.name}
            </Link>
            <div className="hint">Updated {new Date(project.updatedAt).toLocaleString()}</div>
          </div>
          <div className="project-actions">
            <Link className="btn btn-sm" href={`/p/${project.id}`}>
              Open
            </Link>
            {onDelete && (
              <>
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  onClick={() => {
                    setName(project.name);
                    setRenaming(true);
                  }}
                  data-testid="project-rename"
                >
                  Rename
                </button>
                <button type="button" className="btn btn-ghost btn-sm" onClick={onDelete} data-testid="project-delete">
                  Delete
                </button>
              </>
            )}
          </div>
        </>
      )}
    </li>
  );
}

function DeleteProjectDialog({ project, onDone }: { project: Project; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.project.delete.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries(trpc.project.list.queryFilter());
        onDone();
      },
    }),
  );
  return (
    <ConfirmDialog
      title={`Delete ${project.name}?`}
      confirmLabel="Delete project"
      danger
      typeToConfirm={project.name}
      busy={remove.isPending}
      error={remove.error ? errorMessage(remove.error) : null}
      onCancel={onDone}
      onConfirm={() => remove.mutate({ projectId: project.id })}
    >
      This deletes the project and all of its files on the server, and closes its terminals. It cannot be undone.
    </ConfirmDialog>
  );
}
