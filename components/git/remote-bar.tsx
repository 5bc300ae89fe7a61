"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/**
 * Where Fetch, Pull and Push go: the remote Tandem stored for the project (git.remote), which
 * only a project admin changes. The repository's origin is what anyone with a terminal can rewrite,
 * so when it points elsewhere the bar says so plainly, and the admin keeps one or the other in a click.
 * Without a stored remote, a member is told to ask an admin, and the admin confirms origin in one click.
 */
export function RemoteBar({ projectId, canAdmin }: { projectId: string; canAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remote = useQuery(trpc.git.remote.queryOptions({ projectId }));
  const [editing, setEditing] = useState<string | null>(null);
  const set = useMutation(
    trpc.git.setRemote.mutationOptions({
      onSuccess: () => setEditing(null),
      onSettled: () => void queryClient.invalidateQueries(trpc.git.remote.queryFilter({ projectId })),
    }),
  );
  if (!remote.data) return null;
  const { url, origin } = remote.data;
  // A password in origin's URL comes back masked: that origin cannot be stored as it is.
  const originUsable = origin !== null && !/:\*\*\*@/.test(origin);
  const choose = (value: string) => set.mutate({ projectId, url: value });
  const error = set.error && <div className="error-text">{errorMessage(set.error)}</div>;

  if (editing !== null) {
    return (
      <form
        className="scm-remote scm-remote-edit"
        onSubmit={(event) => {
          event.preventDefault();
          choose(editing);
        }}
        data-testid="scm-remote-form"
      >
        <input
          className="input"
          value={editing}
          onChange={(e) => setEditing(e.target.value)}
          placeholder="https://host/owner/repo.git or git@host:owner/repo.git"
          aria-label="Remote URL"
          autoFocus
          data-testid="scm-remote-input"
        />
        <div className="row">
          <span className="spacer" />
          <button type="button" className="btn btn-sm" onClick={() => setEditing(null)}>
            Cancel
          </button>
          <button
            type="submit"
            className="btn btn-sm btn-primary"
            disabled={set.isPending || !editing.trim()}
            data-testid="scm-remote-save"
          >
            Save remote
          </button>
        </div>
        {error}
      </form>
    );
  }

  if (url === null) {
    return (
      <div className="banner banner-warning scm-remote-banner" role="status" data-testid="scm-remote-missing">
        <span className="banner-text">
          {origin ? (
            <>
              Fetch, pull and push wait for a project admin to confirm the remote. The repository&apos;s origin is{" "}
              <code>{origin}</code>.
            </>
          ) : (
            <>This project has no remote yet.</>
          )}
          {!canAdmin && " Ask a project admin to set it: it takes them one click, here."}
        </span>
        {canAdmin && (
          <div className="scm-remote-actions">
            {originUsable && (
              <button
                type="button"
                className="btn btn-sm btn-primary"
                disabled={set.isPending}
                onClick={() => choose(origin)}
                data-testid="scm-remote-use-origin"
              >
                Use origin
              </button>
            )}
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => setEditing(originUsable ? origin : "")}
              data-testid="scm-remote-set"
            >
              Set remote…
            </button>
          </div>
        )}
        {error}
      </div>
    );
  }

  const differs = origin !== null && origin !== url;
  return (
    <>
      <div className="scm-remote" data-testid="scm-remote">
        <span className="scm-remote-label">Remote</span>
        <code className="scm-remote-url" title={`Fetch, pull and push go to ${url}`} data-testid="scm-remote-url">
          {url.replace(/^(https?|ssh):\/\//, "")}
        </code>
        {canAdmin && (
          <button
            type="button"
            className="btn btn-sm btn-ghost"
            onClick={() => setEditing(url)}
            title="Change where fetch, pull and push go"
            data-testid="scm-remote-change"
          >
            Change
          </button>
        )}
      </div>
      {differs && (
        <div className="banner banner-warning scm-remote-banner" role="status" data-testid="scm-remote-differs">
          <span className="banner-text">
            Someone changed the repository&apos;s origin to <code>{origin}</code>. Fetch, pull and push still go to the
            project&apos;s remote, <code>{url}</code>.
            {!canAdmin && " A project admin decides which one the project uses."}
          </span>
          {canAdmin && (
            <div className="scm-remote-actions">
              <button
                type="button"
                className="btn btn-sm btn-primary"
                disabled={set.isPending}
                onClick={() => choose(url)}
                title="Point origin back at the project's remote"
                data-testid="scm-remote-keep"
              >
                Keep the remote
              </button>
              {originUsable && (
                <button
                  type="button"
                  className="btn btn-sm"
                  disabled={set.isPending}
                  onClick={() => choose(origin)}
                  title="Make origin the project's remote"
                  data-testid="scm-remote-use-origin"
                >
                  Use origin
                </button>
              )}
            </div>
          )}
          {error}
        </div>
      )}
    </>
  );
}
