"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { ShownOnceLink } from "@/components/ui/shown-once-link";

/**
 * The project's inbound webhook (docs/api.md#inbound-webhook): a signed JSON delivery starts a
 * session. Its admins make it, give it a new secret, or remove it; the secret is shown once. The same
 * URL takes `@tandem` comments from the project's forge.
 */
export function WebhookCard({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const webhook = useQuery(trpc.webhook.get.queryOptions({ projectId }));
  const [made, setMade] = useState<{ secret: string; gitlabToken: string } | null>(null);
  const refresh = () => void queryClient.invalidateQueries(trpc.webhook.get.queryFilter({ projectId }));
  const enable = useMutation(
    trpc.webhook.enable.mutationOptions({
      onSuccess: ({ secret, gitlabToken }) => setMade({ secret, gitlabToken }),
      onSettled: refresh,
    }),
  );
  const disable = useMutation(
    trpc.webhook.disable.mutationOptions({ onSuccess: () => setMade(null), onSettled: refresh }),
  );
  const url = typeof window === "undefined" ? "" : window.location.origin;
  return (
    <section className="card stack" data-testid="webhook-card">
      <h2>Inbound webhook</h2>
      <p className="hint">
        A signed JSON request (<code>title</code>, <code>prompt</code>, <code>branch</code>, <code>model</code>) starts
        a session in this project, written by the webhook&apos;s own account. See docs/api.md for the signature.
      </p>
      {webhook.data ? (
        <>
          <code data-testid="webhook-url">
            POST {url}
            {webhook.data.path}
          </code>
          <ForgeComments forge={webhook.data.forge} />
          <div className="row">
            <button
              type="button"
              className="btn btn-sm"
              disabled={enable.isPending}
              onClick={() => enable.mutate({ projectId })}
              data-testid="webhook-rotate"
            >
              New secret
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              disabled={disable.isPending}
              onClick={() => disable.mutate({ projectId })}
              data-testid="webhook-remove"
            >
              Remove
            </button>
          </div>
        </>
      ) : (
        <button
          type="button"
          className="btn btn-primary"
          disabled={enable.isPending || webhook.isPending}
          onClick={() => enable.mutate({ projectId })}
          data-testid="webhook-enable"
        >
          Make a webhook
        </button>
      )}
      {made && (
        <ShownOnceLink
          message="Copy the secret now: it is shown only this once."
          url={made.secret}
          testId="webhook-secret"
        />
      )}
      {made && webhook.data?.forge?.kind === "gitlab" && (
        // GitLab sends its token in every delivery's header, so it gets one of its own that opens comments only.
        <ShownOnceLink
          message="GitLab's webhook takes this as its secret token, not the secret above: it opens @tandem comments only."
          url={made.gitlabToken}
          testId="webhook-gitlab-token"
        />
      )}
      {(webhook.error ?? enable.error ?? disable.error) && (
        <div className="error-text">{errorMessage(webhook.error ?? enable.error ?? disable.error)}</div>
      )}
    </section>
  );
}

const FORGE_NAMES = { github: "GitHub", gitlab: "GitLab", gitea: "Gitea/Forgejo" } as const;

/** What the forge's own webhook (at the same URL, with the same secret) makes of `@tandem` comments here. */
function ForgeComments({
  forge,
}: {
  forge: { kind: keyof typeof FORGE_NAMES; repo: string; host: string; teamToken: boolean } | null;
}) {
  if (!forge)
    return (
      <p className="hint" data-testid="webhook-forge">
        On GitHub, GitLab or Gitea/Forgejo, the repository&apos;s own webhook can point here too: set this
        project&apos;s remote on one of them, and <code>@tandem &lt;request&gt;</code> in an issue or pull request
        comment starts a session.
      </p>
    );
  return (
    <div className="stack" data-testid="webhook-forge">
      <p className="hint">
        <strong>{FORGE_NAMES[forge.kind]}</strong> ({forge.repo} on {forge.host}): add this URL as a webhook for comment
        events there, with {forge.kind === "gitlab" ? "the GitLab token shown with a new secret" : "this secret"}.{" "}
        <code>@tandem &lt;request&gt;</code> on an issue starts a session on a new branch that ends in a pull request
        closing it; on a pull request, one that pushes to its branch. Only team members count, by the login on the git
        token they stored for {forge.host}.
      </p>
      {forge.teamToken ? (
        <p className="hint" data-testid="webhook-forge-token">
          Tandem pushes and comments with the team&apos;s token for {forge.host}.
        </p>
      ) : (
        <p className="error-text" data-testid="webhook-forge-token">
          The team has no token for {forge.host}: a team admin stores one in Team settings → Git credentials, or
          comments start nothing.
        </p>
      )}
    </div>
  );
}
