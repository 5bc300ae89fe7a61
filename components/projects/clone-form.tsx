"use client";

import { skipToken, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { isSshRemote, parseRemoteUrl } from "@/lib/git-remote-url";
import type { GitProgress } from "@/lib/git-schemas";
import "@/components/git/source-control.css";

const remoteOf = (url: string) => {
  const remote = parseRemoteUrl(url);
  return { host: remote?.host ?? "", ssh: remote !== null && isSshRemote(remote) };
};
const nameFromUrl = (url: string) =>
  url
    .trim()
    .replace(/\/+$/, "")
    .replace(/\.git$/, "")
    .split("/")
    .pop() ?? "";

/**
 * A new project cloned from a git repository (https, or ssh with a stored key). Progress streams
 * while git works in the project's sandbox and can be cancelled; a failure says why and leaves no project behind. A token
 * for the host can be stored with the account here (it is shown nowhere afterwards). In a team, the
 * team's shared credentials for the host are offered beside the person's own.
 */
export function CloneForm({ teamId }: { teamId?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [url, setUrl] = useState("");
  const [name, setName] = useState("");
  const [branch, setBranch] = useState("");
  const [shallow, setShallow] = useState(false);
  const [credentialId, setCredentialId] = useState("");
  const [token, setToken] = useState("");
  const [operationId, setOperationId] = useState<string | null>(null);
  const [progress, setProgress] = useState<GitProgress | null>(null);
  const { host, ssh } = remoteOf(url);
  const fits = (c: { host: string; kind: string }) => c.host === host && (c.kind === "ssh-key") === ssh;
  const own = useQuery(trpc.gitCredential.list.queryOptions()).data?.filter(fits) ?? [];
  // A project made in a team may also use the team's shared credentials (the server checks which).
  const shared =
    useQuery(trpc.gitCredential.teamList.queryOptions(teamId ? { teamId } : skipToken)).data?.filter(fits) ?? [];
  const forHost = [...own, ...shared];

  useSubscription(
    trpc.git.operation.subscriptionOptions(
      { operationId: operationId ?? "00000000-0000-4000-8000-000000000000" },
      { enabled: operationId !== null, onData: (event) => event.kind === "progress" && setProgress(event) },
    ),
  );
  const addCredential = useMutation(trpc.gitCredential.add.mutationOptions());
  const create = useMutation(
    trpc.project.create.mutationOptions({
      onSuccess: (project) => {
        void queryClient.invalidateQueries(trpc.project.list.queryFilter());
        router.push(`/p/${project.id}`);
      },
      onSettled: () => {
        setOperationId(null);
        setProgress(null);
      },
    }),
  );
  const cancel = useMutation(trpc.git.cancel.mutationOptions());
  const busy = create.isPending || addCredential.isPending;

  async function submit() {
    let chosen = credentialId || undefined;
    if (token.trim() && !ssh) {
      const stored = await addCredential.mutateAsync({ name: `${host} token`, host, token: token.trim() });
      setToken("");
      void queryClient.invalidateQueries(trpc.gitCredential.list.queryFilter());
      chosen = stored.id;
    }
    const id = crypto.randomUUID();
    setOperationId(id);
    create.mutate({
      name: name.trim() || nameFromUrl(url),
      gitUrl: url.trim(),
      branch: branch.trim() || undefined,
      depth: shallow ? 1 : undefined,
      credentialId: chosen,
      teamId,
      operationId: id,
    });
  }

  return (
    <form
      className="stack"
      data-testid="clone-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit().catch(() => undefined);
      }}
    >
      <label className="field">
        <span>Repository URL</span>
        <input
          className="input"
          placeholder="https://github.com/owner/repo.git or git@github.com:owner/repo.git"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          required
          data-testid="clone-url"
        />
      </label>
      <div className="row">
        <label className="field" style={{ flex: 2 }}>
          <span>Project name</span>
          <input
            className="input"
            placeholder={nameFromUrl(url) || "my-app"}
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="clone-name"
          />
        </label>
        <label className="field" style={{ flex: 1 }}>
          <span>Branch (optional)</span>
          <input
            className="input"
            placeholder="default"
            value={branch}
            onChange={(e) => setBranch(e.target.value)}
            data-testid="clone-branch"
          />
        </label>
      </div>
      <label className="scm-amend">
        <input
          type="checkbox"
          checked={shallow}
          onChange={(e) => setShallow(e.target.checked)}
          data-testid="clone-shallow"
        />
        Shallow clone (latest commit only)
      </label>
      {host && (
        <div className="row">
          {forHost.length > 0 && (
            <label className="field" style={{ flex: 1 }}>
              <span>Credential for {host}</span>
              <select
                className="input"
                value={credentialId}
                onChange={(e) => setCredentialId(e.target.value)}
                data-testid="clone-credential"
              >
                <option value="">The first that fits (or none)</option>
                {[
                  { label: "Yours", list: own },
                  { label: "The team's shared credentials", list: shared },
                ].map(
                  ({ label, list }) =>
                    list.length > 0 && (
                      <optgroup key={label} label={label}>
                        {list.map((c) => (
                          <option key={c.id} value={c.id}>
                            {c.name} ({c.username}){c.teamId ? " · team" : ""}
                          </option>
                        ))}
                      </optgroup>
                    ),
                )}
              </select>
            </label>
          )}
          {ssh ? (
            forHost.length === 0 && (
              <span className="hint" style={{ flex: 1 }} data-testid="clone-ssh-hint">
                An ssh URL needs an ssh key for {host}: add one under Your git credentials (or ask a team admin for a
                shared one).
              </span>
            )
          ) : (
            <label className="field" style={{ flex: 1 }}>
              <span>{forHost.length ? "Or store a new token" : `Token for ${host} (private repositories)`}</span>
              <input
                className="input"
                type="password"
                autoComplete="off"
                placeholder="Personal access token"
                value={token}
                onChange={(e) => setToken(e.target.value)}
                data-testid="clone-token"
              />
            </label>
          )}
        </div>
      )}
      {create.isPending && (
        <div className="scm-progress" role="status" data-testid="clone-progress" style={{ padding: 0 }}>
          <span>
            {progress
              ? `${progress.phase}${progress.percent !== null ? ` ${progress.percent}%` : ""}${progress.total ? ` (${progress.done}/${progress.total} objects)` : ""}`
              : "Connecting…"}
          </span>
          <div className="scm-progress-bar">
            <div style={{ width: `${progress?.percent ?? 3}%` }} />
          </div>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => operationId && cancel.mutate({ operationId })}
            data-testid="clone-cancel"
          >
            Cancel
          </button>
        </div>
      )}
      <div className="row">
        <span className="hint" style={{ flex: 1 }}>
          git runs in the project&apos;s sandbox; tokens are stored encrypted and only ever sent to their host.
        </span>
        <button className="btn btn-primary" type="submit" disabled={busy || !url.trim()} data-testid="clone-submit">
          {create.isPending ? "Cloning…" : "Clone"}
        </button>
      </div>
      {(create.error || addCredential.error) && (
        <div className="error-text" role="alert" data-testid="clone-error" style={{ whiteSpace: "pre-wrap" }}>
          {errorMessage(create.error ?? addCredential.error)}
        </div>
      )}
    </form>
  );
}
