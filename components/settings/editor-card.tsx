"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

const DELAYS = [
  { value: "", label: "Off: files save when someone presses Ctrl/Cmd+S" },
  { value: "1000", label: "1 second after the last edit" },
  { value: "5000", label: "5 seconds after the last edit" },
  { value: "30000", label: "30 seconds after the last edit" },
] as const;

/** Autosave of files edited together: done once by the server's live document, for everyone. */
export function EditorCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const autosave = useQuery(trpc.project.autosave.queryOptions({ projectId }));
  const set = useMutation(
    trpc.project.setAutosave.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries(trpc.project.autosave.queryFilter({ projectId })),
    }),
  );
  const current = autosave.data ? String(autosave.data.afterMs ?? "") : "";
  const known = DELAYS.some((delay) => delay.value === current);
  return (
    <section className="card stack" data-testid="editor-settings">
      <h2>Editor</h2>
      {autosave.error && <div className="error-text">{errorMessage(autosave.error)}</div>}
      <label className="field">
        <span>Autosave</span>
        <select
          className="input"
          value={current}
          disabled={!canEdit || !autosave.data || set.isPending}
          onChange={(event) =>
            set.mutate({ projectId, afterMs: event.target.value ? Number(event.target.value) : null })
          }
          data-testid="autosave"
        >
          {DELAYS.map((delay) => (
            <option key={delay.value} value={delay.value}>
              {delay.label}
            </option>
          ))}
          {!known && <option value={current}>{Number(current) / 1000} seconds after the last edit</option>}
        </select>
        <small className="hint">
          Files shared live save for everyone at once, through the same save as Ctrl/Cmd+S.
          {!canEdit && " The team's owners and admins choose this."}
        </small>
      </label>
      {set.error && <div className="error-text">{errorMessage(set.error)}</div>}
    </section>
  );
}
