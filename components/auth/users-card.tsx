"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/** Everyone with an account; an admin disables one (their logins and tokens stop at once) or enables it again. */
export function UsersCard({ selfId }: { selfId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.account.users.queryOptions());
  const [error, setError] = useState<string | null>(null);
  const setDisabled = useMutation(
    trpc.account.setUserDisabled.mutationOptions({
      onSuccess: () => {
        setError(null);
        void queryClient.invalidateQueries(trpc.account.users.queryFilter());
      },
      onError: (e) => setError(errorMessage(e)),
    }),
  );
  return (
    <section className="card stack" data-testid="users-card">
      <div className="section-title">
        <h2>People</h2>
        <span className="hint">A disabled person is signed out everywhere and their API tokens stop working.</span>
      </div>
      <table className="table">
        <tbody>
          {users.data?.map((user) => (
            <tr key={user.id} data-testid="user-row" data-email={user.email}>
              <td>{user.name}</td>
              <td>{user.email}</td>
              <td>
                {user.role === "admin" ? "admin" : ""}
                {user.disabledAt && <strong data-testid="user-disabled">disabled</strong>}
              </td>
              <td style={{ textAlign: "right" }}>
                {user.id !== selfId && (
                  <button
                    type="button"
                    className="btn btn-ghost btn-sm"
                    disabled={setDisabled.isPending}
                    onClick={() => setDisabled.mutate({ userId: user.id, disabled: !user.disabledAt })}
                    data-testid="user-toggle-disabled"
                  >
                    {user.disabledAt ? "Enable" : "Disable"}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {error && <div className="error-text">{error}</div>}
    </section>
  );
}
