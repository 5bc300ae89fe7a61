"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { errorMessage } from "@/components/ui/error-message";

/**
 * The ssh host keys the project trusted on first use (git over ssh refuses a host whose key then
 * changes). After a host really changed its key, a project admin forgets the old one here; the
 * next fetch trusts the key the host presents then.
 */
export function KnownHosts({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.git.knownHosts.queryOptions({ projectId }));
  const [forgetting, setForgetting] = useState<string | null>(null);
  const forget = useMutation(
    trpc.git.forgetHostKey.mutationOptions({
      onSuccess: () => {
        setForgetting(null);
        void queryClient.invalidateQueries(trpc.git.knownHosts.queryFilter({ projectId }));
      },
    }),
  );

  return (
    <div className="stack" data-testid="known-hosts">
      <h3>Trusted ssh host keys</h3>
      {keys.error && <div className="error-text">{errorMessage(keys.error)}</div>}
      {keys.data?.length === 0 && (
        <p className="muted">None yet: the first clone or fetch over ssh from a host trusts the key it presents.</p>
      )}
      {keys.data && keys.data.length > 0 && (
        <table className="network-log known-hosts-table" data-testid="known-hosts-table">
          <thead>
            <tr>
              <th>Host</th>
              <th>Key type</th>
              <th>Fingerprint</th>
              <th>First seen</th>
              {canEdit && <th aria-label="Actions" />}
            </tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <tr key={`${key.host} ${key.keyType}`} data-testid={`known-host-${key.host}`}>
                <td>{key.host}</td>
                <td>{key.keyType}</td>
                <td className="known-host-fingerprint">{key.fingerprint}</td>
                <td>
                  {new Date(key.acceptedAt).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })}
                </td>
                {canEdit && (
                  <td>
                    <button
                      type="button"
                      className="btn btn-sm"
                      onClick={() => setForgetting(key.host)}
                      data-testid="known-host-forget"
                    >
                      Forget
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {forgetting && (
        <ConfirmDialog
          title={`Forget the host keys of ${forgetting}?`}
          confirmLabel="Forget"
          danger
          busy={forget.isPending}
          error={forget.error ? errorMessage(forget.error) : null}
          onCancel={() => {
            forget.reset();
            setForgetting(null);
          }}
          onConfirm={() => forget.mutate({ projectId, host: forgetting })}
        >
          Do this only when you know the host changed its key. The next fetch, pull or push trusts whatever key{" "}
          {forgetting} presents then, so a machine in the middle would be trusted too.
        </ConfirmDialog>
      )}
    </div>
  );
}
