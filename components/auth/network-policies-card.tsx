"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

const POLICIES = [
  { value: "off", label: "Off" },
  { value: "allow-list", label: "Allow-list" },
  { value: "open", label: "Open" },
] as const;

/** Which network policies projects may choose; each button permits or rules out one. */
export function NetworkPoliciesCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.account.settings.queryOptions());
  const [error, setError] = useState<string | null>(null);
  const save = useMutation(
    trpc.account.setNetworkPolicies.mutationOptions({
      onSuccess: ({ networkPolicies }) => {
        setError(null);
        // The next click builds on what the server stored, not on a settings read still on its way.
        queryClient.setQueryData(trpc.account.settings.queryKey(), (old) => (old ? { ...old, networkPolicies } : old));
        void queryClient.invalidateQueries(trpc.account.settings.queryFilter());
        void queryClient.invalidateQueries(trpc.network.settings.queryFilter());
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  const permitted = save.isPending ? save.variables.networkPolicies : (settings.data?.networkPolicies ?? []);

  return (
    <section className="card" data-testid="network-policies-card">
      <div className="section-title">
        <h2>Network policies projects may choose</h2>
      </div>
      <div className="row">
        <div className="segmented" role="group" aria-label="Permitted network policies" data-testid="network-policies">
          {POLICIES.map(({ value, label }) => {
            const on = permitted.includes(value);
            return (
              <button
                key={value}
                type="button"
                aria-pressed={on}
                // One change at a time, and at least one policy stays permitted.
                disabled={!settings.data || save.isPending || (on && permitted.length === 1)}
                onClick={() =>
                  save.mutate({ networkPolicies: on ? permitted.filter((p) => p !== value) : [...permitted, value] })
                }
                data-testid={`network-policy-${value}`}
              >
                {label}
              </button>
            );
          })}
        </div>
      </div>
      <p className="hint">
        A project whose policy is ruled out uses the most restrictive permitted one (off, then allow-list, then open)
        until it is permitted again.
      </p>
      {error && <div className="error-text">{error}</div>}
    </section>
  );
}
