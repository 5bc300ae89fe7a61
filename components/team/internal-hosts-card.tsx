"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/**
 * The internal hosts and ranges the team's projects may reach (an office git server, a package
 * mirror): owners and admins edit them, everyone sees them and the server's own.
 */
export function InternalHostsCard({ teamId, manage }: { teamId: string; manage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const hosts = useQuery(trpc.team.internalHosts.queryOptions({ teamId }));
  const [text, setText] = useState("");
  // The saved list fills the box until the person types: a list that arrives (or comes back from
  // a refetch) after they started must not wipe what they typed.
  const [edited, setEdited] = useState(false);
  useEffect(() => {
    if (hosts.data && !edited) setText(hosts.data.team.join("\n"));
  }, [hosts.data, edited]);
  const save = useMutation(
    trpc.team.setInternalHosts.mutationOptions({
      onSuccess: () => {
        setEdited(false);
        void queryClient.invalidateQueries(trpc.team.internalHosts.queryFilter({ teamId }));
      },
    }),
  );
  const entries = text
    .split(/[\s,]+/)
    .map((e) => e.trim())
    .filter(Boolean);
  return (
    <section className="card stack" data-testid="team-internal-hosts">
      <h2>Internal hosts</h2>
      <p className="hint">
        Hosts on your own network that this team&apos;s projects may reach, for clone, fetch and push and from terminals
        and the agent&apos;s shell (each project&apos;s network policy still applies): a host name (git.office.lan),
        *.domain, an address (10.20.0.7) or a range (10.20.0.0/16). These reach private addresses only: the
        server&apos;s own loopback and cloud-metadata addresses are for the server&apos;s admin to open.
      </p>
      {manage ? (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ teamId, entries });
          }}
        >
          <textarea
            className="input"
            rows={4}
            style={{ height: "auto", minHeight: 88, resize: "vertical" }}
            value={text}
            onChange={(e) => {
              setEdited(true);
              setText(e.target.value);
            }}
            placeholder={"git.office.lan\n10.20.0.0/16"}
            aria-label="Internal hosts, one per line"
            data-testid="team-internal-hosts-input"
          />
          <div className="row">
            <button
              className="btn btn-primary"
              type="submit"
              disabled={save.isPending}
              data-testid="team-internal-hosts-save"
            >
              Save
            </button>
            {save.isSuccess && !save.isPending && <span className="muted">Saved: applies to the next connection.</span>}
          </div>
          {save.error && <div className="error-text">{errorMessage(save.error)}</div>}
        </form>
      ) : (
        <p>{hosts.data?.team.length ? hosts.data.team.join(", ") : <span className="muted">None.</span>}</p>
      )}
      {hosts.data && hosts.data.server.length > 0 && (
        <p className="hint">Allowed for every project by the server&apos;s admin: {hosts.data.server.join(", ")}.</p>
      )}
    </section>
  );
}
