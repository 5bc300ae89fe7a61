"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";

// Public links to a port's preview, as share links are to a session: made by the project's
// writers with an expiry, shown once (only a hash is kept), revoked at once, which also closes
// the pages open through them.

const EXPIRIES = [
  { hours: 1, label: "1 hour" },
  { hours: 24, label: "1 day" },
  { hours: 24 * 7, label: "7 days" },
  { hours: 24 * 30, label: "30 days" },
];

const when = (date: Date | string) => new Date(date).toLocaleString();

export function PreviewLinks({ projectId, ports }: { projectId: string; ports: number[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const links = useQuery(trpc.ports.links.queryOptions({ projectId }));
  const refresh = () => void queryClient.invalidateQueries(trpc.ports.links.queryFilter({ projectId }));
  const [made, setMade] = useState<{ id: string; url: string } | null>(null);
  const create = useMutation(
    trpc.ports.createLink.mutationOptions({
      onSuccess: (link) => setMade({ id: link.id, url: link.url }),
      onSettled: refresh,
    }),
  );
  const revoke = useMutation(trpc.ports.revokeLink.mutationOptions({ onSettled: refresh }));
  const [port, setPort] = useState<number | null>(null);
  const [hours, setHours] = useState(24);
  const chosen = port !== null && ports.includes(port) ? port : (ports[0] ?? null);
  const live = (links.data ?? []).filter((link) => link.state === "active");
  const error = create.error ?? revoke.error ?? links.error;
  if (ports.length === 0 && live.length === 0) return null;
  return (
    <section className="preview-links" data-testid="preview-links">
      <div className="preview-links-form">
        <span className="muted">Public link:</span>
        <select
          className="input"
          aria-label="Port of the public link"
          value={chosen ?? ""}
          onChange={(event) => setPort(Number(event.target.value))}
          disabled={ports.length === 0}
        >
          {ports.map((p) => (
            <option key={p} value={p}>
              port {p}
            </option>
          ))}
        </select>
        <select
          className="input"
          aria-label="How long the link works"
          value={hours}
          onChange={(event) => setHours(Number(event.target.value))}
        >
          {EXPIRIES.map((e) => (
            <option key={e.hours} value={e.hours}>
              for {e.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn btn-sm"
          disabled={chosen === null || create.isPending}
          onClick={() => chosen !== null && create.mutate({ projectId, port: chosen, expiresInHours: hours })}
          data-testid="create-preview-link"
        >
          Create link
        </button>
        <span className="muted preview-links-note">Anyone holding it opens the port, without signing in.</span>
      </div>
      {error && (
        <p className="ports-error" role="alert">
          {error.message}
        </p>
      )}
      {made && (
        <div className="preview-links-made">
          <span>Copy it now; it is not shown again:</span>
          <input
            className="input"
            readOnly
            value={made.url}
            data-testid="preview-link-url"
            onFocus={(e) => e.target.select()}
          />
          <button type="button" className="btn btn-sm" onClick={() => void navigator.clipboard?.writeText(made.url)}>
            Copy
          </button>
        </div>
      )}
      {live.length > 0 && (
        <ul className="preview-links-list">
          {live.map((link) => (
            <li key={link.id} data-testid={`preview-link-${link.port}`}>
              <span>
                Port {link.port}, public until {when(link.expiresAt)}
              </span>
              <button
                type="button"
                className="btn btn-ghost btn-sm"
                disabled={revoke.isPending}
                onClick={() => {
                  if (made?.id === link.id) setMade(null);
                  revoke.mutate({ projectId, linkId: link.id });
                }}
                aria-label={`Revoke the public link of port ${link.port}`}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
