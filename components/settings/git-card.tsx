"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { KnownHosts } from "@/components/settings/known-hosts";

/** How Source Control's Pull brings in the upstream (a merge commit, or rebasing local commits on top), and the ssh host keys the project trusts. */
export function GitCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.git.status.queryOptions({ projectId }));
  const set = useMutation(trpc.git.setPullMode.mutationOptions({ onSettled: () => void queryClient.invalidateQueries(trpc.git.status.queryFilter({ projectId })) }));
  const data = status.data;
  return (
    <section className="card stack" data-testid="git-settings">
      <h2>Git</h2>
      {status.error && <div className="error-text">{errorMessage(status.error)}</div>}
      {data && !data.repository && <p className="muted">This project is not a git repository. Initialize one, or clone a repository, from Source Control.</p>}
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
      {data?.repository && <KnownHosts projectId={projectId} canEdit={canEdit} />}
    </section>
  );
}
