"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { ShownOnceLink } from "@/components/ui/shown-once-link";

/**
 * The project's inbound webhook (docs/api.md#inbound-webhook): a signed JSON delivery starts a
 * session. Its admins make it, give it a new secret, or remove it; the secret is shown once.
 */
export function WebhookCard({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const webhook = useQuery(trpc.webhook.get.queryOptions({ projectId }));
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries(trpc.webhook.get.queryFilter({ projectId }));
  const enable = useMutation(
    trpc.webhook.enable.mutationOptions({ onSuccess: ({ secret }) => setSecret(secret), onSettled: refresh }),
  );
  const disable = useMutation(
    trpc.webhook.disable.mutationOptions({ onSuccess: () => setSecret(null), onSettled: refresh }),
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
      {secret && (
        <ShownOnceLink
          message="Copy the secret now: it is shown only this once."
          url={secret}
          testId="webhook-secret"
        />
      )}
      {(webhook.error ?? enable.error ?? disable.error) && (
        <div className="error-text">{errorMessage(webhook.error ?? enable.error ?? disable.error)}</div>
      )}
    </section>
  );
}
