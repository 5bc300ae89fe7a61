"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type Scope = "project" | "user";
type Memory = {
  key: string;
  value: string;
  pinned: boolean;
  updatedAt: Date;
  agentWritten: boolean;
  approvedBy: { id: string; name: string } | null;
};

/** What the agent remembers: the project's (shared with the team) or the viewer's own. */
export function MemoryPanel({ projectId, canWrite }: { projectId: string; canWrite: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [scope, setScope] = useState<Scope>("project");
  const [query, setQuery] = useState("");
  const [editing, setEditing] = useState<Memory | "new" | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const search = query.trim();
  const list = useQuery(trpc.memory.list.queryOptions({ projectId, scope }, { enabled: !search }));
  const found = useQuery(trpc.memory.search.queryOptions({ projectId, scope, query: search }, { enabled: !!search }));
  const rows = (search ? found.data : list.data) ?? [];
  const pending = search ? found.isPending : list.isPending;
  const error = search ? found.error : list.error;
  const writable = canWrite || scope === "user";

  const refresh = () => queryClient.invalidateQueries(trpc.memory.pathFilter());
  const remove = useMutation(trpc.memory.delete.mutationOptions({ onSuccess: () => void refresh() }));
  const pin = useMutation(trpc.memory.pin.mutationOptions({ onSuccess: () => void refresh() }));
  const unpin = useMutation(trpc.memory.unpin.mutationOptions({ onSuccess: () => void refresh() }));
  const pinError = pin.error ?? unpin.error;

  const exportMarkdown = async () => {
    const { filename, markdown } = await queryClient.fetchQuery(trpc.memory.export.queryOptions({ projectId, scope }));
    const url = URL.createObjectURL(new Blob([markdown], { type: "text/markdown" }));
    const link = Object.assign(document.createElement("a"), { href: url, download: filename });
    link.click();
    URL.revokeObjectURL(url);
  };

  return (
    <div className="side-panel" data-testid="memory-panel">
      <div className="session-list-head">
        <div className="segmented" role="group" aria-label="Whose memory">
          <button
            type="button"
            aria-pressed={scope === "project"}
            onClick={() => setScope("project")}
            data-testid="memory-scope-project"
          >
            Project
          </button>
          <button
            type="button"
            aria-pressed={scope === "user"}
            onClick={() => setScope("user")}
            data-testid="memory-scope-user"
          >
            Personal
          </button>
        </div>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={() => void exportMarkdown()}
          data-testid="memory-export"
        >
          Export .md
        </button>
        {writable && (
          <button type="button" className="btn btn-sm" onClick={() => setEditing("new")} data-testid="memory-new">
            Add
          </button>
        )}
      </div>
      <input
        className="input"
        type="search"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        placeholder="Search memory"
        aria-label="Search memory"
        data-testid="memory-search"
      />
      {editing !== null && (
        <MemoryEditor
          projectId={projectId}
          scope={scope}
          memory={editing === "new" ? null : editing}
          onDone={() => setEditing(null)}
        />
      )}
      {error && <p className="error-text">{errorMessage(error)}</p>}
      {pinError && <p className="error-text">{errorMessage(pinError)}</p>}
      {pending ? (
        <div className="hint">Loading…</div>
      ) : rows.length === 0 ? (
        <div className="empty">
          {search
            ? "Nothing matches."
            : scope === "project"
              ? "The agent has not remembered anything for this project yet."
              : "Nothing remembered for you yet."}
        </div>
      ) : (
        <ul className="memories">
          {rows.map((m) => (
            <li key={m.key} className="memory" data-testid="memory-row" data-pinned={m.pinned}>
              <div className="row">
                <code className="memory-key">{m.key}</code>
                {m.pinned && (
                  <span
                    className="badge"
                    title="Pinned: the agent reads it in every session"
                    data-testid="memory-pinned"
                  >
                    Pinned
                  </span>
                )}
                {m.agentWritten && (
                  <span
                    className="badge"
                    title="The agent stored this; people did not type it"
                    data-testid="memory-agent-written"
                  >
                    {m.approvedBy ? `Agent · approved by ${m.approvedBy.name}` : "Agent"}
                  </span>
                )}
                <span className="spacer" />
                {writable && (
                  <>
                    <button
                      type="button"
                      className="btn btn-ghost btn-sm"
                      aria-pressed={m.pinned}
                      title={
                        m.pinned
                          ? "Stop giving this to the agent in every session"
                          : "Give this to the agent in every session"
                      }
                      disabled={pin.isPending || unpin.isPending}
                      onClick={() => (m.pinned ? unpin : pin).mutate({ projectId, scope, key: m.key })}
                      data-testid="memory-pin"
                    >
                      {m.pinned ? "Unpin" : "Pin"}
                    </button>
                    <button
                      type="button"
                      className="btn btn-ghost btn-sm"
                      onClick={() => setEditing(m)}
                      data-testid="memory-edit"
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      className="btn btn-ghost btn-sm"
                      onClick={() => setDeleting(m.key)}
                      data-testid="memory-delete"
                    >
                      Delete
                    </button>
                  </>
                )}
              </div>
              <div className="memory-value">{m.value}</div>
            </li>
          ))}
        </ul>
      )}
      {deleting && (
        <ConfirmDialog
          title="Delete this memory?"
          confirmLabel="Delete"
          danger
          busy={remove.isPending}
          error={remove.error ? errorMessage(remove.error) : null}
          onConfirm={() => remove.mutate({ projectId, scope, key: deleting }, { onSuccess: () => setDeleting(null) })}
          onCancel={() => setDeleting(null)}
        >
          <p>The agent will no longer remember “{deleting}”.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function MemoryEditor({
  projectId,
  scope,
  memory,
  onDone,
}: {
  projectId: string;
  scope: Scope;
  memory: Memory | null;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [key, setKey] = useState(memory?.key ?? "");
  const [value, setValue] = useState(memory?.value ?? "");
  const save = useMutation(trpc.memory.save.mutationOptions());
  const remove = useMutation(trpc.memory.delete.mutationOptions());
  const submit = async () => {
    await save.mutateAsync({ projectId, scope, key: key.trim(), value });
    // A renamed entry is a new key: the old one goes.
    if (memory && memory.key !== key.trim()) await remove.mutateAsync({ projectId, scope, key: memory.key });
    await queryClient.invalidateQueries(trpc.memory.pathFilter());
    onDone();
  };
  return (
    <form
      className="memory memory-editor stack"
      onSubmit={(e) => {
        e.preventDefault();
        void submit().catch(() => {});
      }}
      onKeyDown={(e) => e.key === "Escape" && onDone()}
    >
      <input
        className="input"
        value={key}
        onChange={(e) => setKey(e.target.value)}
        placeholder="Key, e.g. test-command"
        aria-label="Memory key"
        autoFocus
        data-testid="memory-key"
      />
      <textarea
        className="input textarea"
        rows={4}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder="What to remember"
        aria-label="Memory value"
        data-testid="memory-value"
      />
      {(save.error ?? remove.error) && <span className="error-text">{errorMessage(save.error ?? remove.error)}</span>}
      <div className="row">
        <button
          type="submit"
          className="btn btn-primary btn-sm"
          disabled={!key.trim() || !value.trim() || save.isPending}
          data-testid="memory-save"
        >
          Save
        </button>
        <button type="button" className="btn btn-ghost btn-sm" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
