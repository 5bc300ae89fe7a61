"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { KnownHosts } from "@/components/settings/known-hosts";
import { parseRemoteUrl } from "@/lib/git-remote-url";

const FORGES = [
  { value: "github", label: "GitHub Enterprise" },
  { value: "gitlab", label: "GitLab" },
  { value: "gitea", label: "Gitea or Forgejo" },
  { value: "bitbucket", label: "Bitbucket" },
] as const;

/** How Source Control's Pull brings in the upstream (a merge commit, or rebasing local commits on top), and the ssh host keys the project trusts. */
export function GitCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.git.status.queryOptions({ projectId }));
  const set = useMutation(
    trpc.git.setPullMode.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries(trpc.git.status.queryFilter({ projectId })),
    }),
  );
  const data = status.data;
  return (
    <section className="card stack" data-testid="git-settings">
      <h2>Git</h2>
      {status.error && <div className="error-text">{errorMessage(status.error)}</div>}
      {data && !data.repository && (
        <p className="muted">
          This project is not a git repository. Initialize one, or clone a repository, from Source Control.
        </p>
      )}
      {data?.repository && (
        <label className="field">
          <span>Pull</span>
          <select
            className="input"
            value={data.pullMode}
            disabled={!canEdit || set.isPending}
            onChange={(event) => set.mutate({ projectId, mode: event.target.value === "rebase" ? "rebase" : "merge" })}
            data-testid="git-pull-mode"
          >
            <option value="merge">Merge the upstream into the branch (git pull --no-rebase)</option>
            <option value="rebase">Rebase the branch's commits onto the upstream (git pull --rebase)</option>
          </select>
          {!canEdit && <small className="hint">The team&apos;s owners and admins choose this.</small>}
        </label>
      )}
      {set.error && <div className="error-text">{errorMessage(set.error)}</div>}
      {data?.repository && <ForgeField projectId={projectId} canEdit={canEdit} />}
      {data?.repository && <KnownHosts projectId={projectId} canEdit={canEdit} />}
    </section>
  );
}

/**
 * Which forge serves a self-hosted remote, for the pull-request link after a push: well-known
 * hosts (github.com, gitlab.com, ...) and the server's own list need nothing here.
 */
function ForgeField({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remote = useQuery(trpc.git.remote.queryOptions({ projectId }));
  const set = useMutation(
    trpc.git.setForge.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries(trpc.git.remote.queryFilter({ projectId })),
    }),
  );
  const host = remote.data?.url ? parseRemoteUrl(remote.data.url)?.hostname : null;
  if (!remote.data) return null;
  return (
    <label className="field">
      <span>Pull request links{host ? ` for ${host}` : ""}</span>
      <select
        className="input"
        value={remote.data.forge ?? ""}
        disabled={!canEdit || set.isPending}
        onChange={(event) =>
          set.mutate({ projectId, forge: FORGES.find((f) => f.value === event.target.value)?.value ?? null })
        }
        data-testid="git-forge"
      >
        <option value="">Known hosts only (github.com, gitlab.com, bitbucket.org, codeberg.org)</option>
        {FORGES.map((f) => (
          <option key={f.value} value={f.value}>
            {f.label}
          </option>
        ))}
      </select>
      <small className="hint">
        {canEdit
          ? "For a forge on your own host: after a push, Source Control links to its page for a new pull request."
          : "The team's owners and admins choose this."}
      </small>
      {set.error && <div className="error-text">{errorMessage(set.error)}</div>}
    </label>
  );
}
