"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { TerminalTab } from "@/components/terminal/terminal-tab";
import { reconcile, rememberedTerminals, type SeenTerminal } from "@/components/terminal/remembered-terminals";
import { useTRPC } from "@/components/trpc-provider";
import { useCommands } from "@/components/ui/commands";
import { errorMessage } from "@/components/ui/error-message";
import { PlusIcon } from "@/components/ui/icons";
import { useTreeInput } from "@/components/ui/tree-context";

const TerminalView = dynamic(() => import("@/components/terminal/terminal-view").then((m) => m.TerminalView), {
  ssr: false,
  loading: () => <div className="center-message">Starting terminal…</div>,
});

const focusTerminal = () =>
  requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-testid=terminal-host] textarea")?.focus());

/** The terminal this browser last looked at in the project, so a reload comes back to it. */
function useChosenTerminal(projectId: string): [string | null, (id: string | null) => void] {
  const key = `tandem-terminal:${projectId}`;
  const [chosen, setChosen] = useState<string | null>(null);
  useEffect(() => setChosen(localStorage.getItem(key)), [key]);
  const choose = useCallback(
    (id: string | null) => {
      setChosen(id);
      if (id) localStorage.setItem(key, id);
      else localStorage.removeItem(key);
    },
    [key],
  );
  return [chosen, choose];
}

/** The terminals of the project as tabs; `header` (the bottom panel's titles) starts the tab row. */
export function TerminalPanel({
  projectId,
  canWrite,
  header,
}: {
  projectId: string;
  canWrite: boolean;
  header: ReactNode;
}) {
  const trpc = useTRPC();
  const tree = useTreeInput();
  const queryClient = useQueryClient();
  // Polled: who may type changes when a terminal's owner grants input.
  const terminals = useQuery(trpc.terminal.list.queryOptions({ projectId }, { refetchInterval: 3_000 }));
  // Asked as often as the list, so a restart while the page is open is told from a close too.
  const server = useQuery(trpc.terminal.server.queryOptions({ projectId }, { refetchInterval: 3_000 }));
  const [chosen, setChosen] = useChosenTerminal(projectId);
  const memory = useMemo(() => rememberedTerminals(projectId), [projectId]);
  // Terminals this browser saw that the server lost when it restarted: shown with a notice until closed.
  const [ended, setEnded] = useState<SeenTerminal[]>([]);
  useEffect(() => {
    if (!terminals.data || !server.data) return;
    const next = reconcile(memory.load(), terminals.data, server.data.startedAt);
    memory.save(next.remember);
    setEnded(next.ended);
  }, [memory, terminals.data, server.data]);
  const forget = (id: string) => {
    memory.save(memory.load().filter((t) => t.id !== id));
    setEnded((list) => list.filter((t) => t.id !== id));
  };
  // The terminal this person just opened takes the keyboard, so they can type at once, unless
  // they moved on (a key, a click) before it appeared: a late terminal must not steal the focus.
  const [openedHere, setOpenedHere] = useState<string | null>(null);
  useEffect(() => {
    if (!openedHere) return;
    const movedOn = () => setOpenedHere(null);
    window.addEventListener("keydown", movedOn, true);
    window.addEventListener("pointerdown", movedOn, true);
    return () => {
      window.removeEventListener("keydown", movedOn, true);
      window.removeEventListener("pointerdown", movedOn, true);
    };
  }, [openedHere]);
  const refresh = () => queryClient.invalidateQueries(trpc.terminal.list.queryFilter({ projectId }));
  const create = useMutation(
    trpc.terminal.create.mutationOptions({
      onSuccess: async (terminal) => {
        // Show the new terminal at once, not the first one until the list is refetched.
        queryClient.setQueryData(trpc.terminal.list.queryKey({ projectId }), (old) => [...(old ?? []), terminal]);
        setChosen(terminal.id);
        setOpenedHere(terminal.id);
        await refresh();
      },
    }),
  );
  const close = useMutation(trpc.terminal.close.mutationOptions({ onSettled: () => void refresh() }));
  const shareInput = useMutation(trpc.terminal.shareInput.mutationOptions({ onSettled: () => void refresh() }));

  const list = terminals.data ?? [];
  const endedChosen = ended.find((t) => t.id === chosen) ?? null;
  const active = endedChosen ? null : (list.find((t) => t.id === chosen) ?? list[0] ?? null);
  const error = create.error ?? close.error ?? shareInput.error ?? terminals.error;

  const closeTerminal = (id: string) => {
    const tabs = [...list, ...ended];
    const index = tabs.findIndex((t) => t.id === id);
    if (id === active?.id || id === endedChosen?.id) setChosen((tabs[index + 1] ?? tabs[index - 1])?.id ?? null);
    if (ended.some((t) => t.id === id)) forget(id);
    else close.mutate({ projectId, terminalId: id });
  };

  useCommands([
    ...(canWrite
      ? [{ id: "terminal-new", label: "New terminal", run: () => create.mutate({ projectId, ...tree }) }]
      : []),
    ...(active
      ? [
          { id: "terminal-focus", label: "Focus terminal", run: focusTerminal, takesFocus: true },
          { id: "terminal-close", label: "Close terminal", run: () => closeTerminal(active.id) },
        ]
      : []),
  ]);

  return (
    <div className="pane terminal-panel" data-testid="terminal-panel">
      <div className="terminal-tabs" role="tablist">
        {header}
        {list.map((terminal, index) => (
          <TerminalTab
            key={terminal.id}
            selected={terminal.id === active?.id}
            title={terminal.title}
            closeLabel={`Close terminal ${index + 1}`}
            testId={`terminal-tab-${index}`}
            onSelect={() => setChosen(terminal.id)}
            onClose={() => closeTerminal(terminal.id)}
          >
            <span>
              {terminal.title}
              {terminal.exited && " (exited)"}
            </span>
          </TerminalTab>
        ))}
        {ended.map((terminal) => (
          <TerminalTab
            key={terminal.id}
            selected={terminal.id === endedChosen?.id}
            title={`${terminal.title}: ended when the server restarted`}
            closeLabel={`Close ${terminal.title}`}
            testId="terminal-ended-tab"
            onSelect={() => setChosen(terminal.id)}
            onClose={() => closeTerminal(terminal.id)}
          >
            <span className="muted">{terminal.title} (ended)</span>
          </TerminalTab>
        ))}
        {canWrite && (
          <button
            type="button"
            className="icon-btn"
            title="New Terminal"
            aria-label="New Terminal"
            disabled={create.isPending}
            onClick={() => create.mutate({ projectId, ...tree })}
            data-testid="terminal-new"
          >
            <PlusIcon />
          </button>
        )}
        {error && <span className="error-text">{errorMessage(error)}</span>}
        <span className="spacer" />
        {active?.mine ? (
          <label
            className="terminal-access"
            title={
              active.holdsOwnSecrets
                ? "This terminal holds your own secrets (account settings), so only you may type in it"
                : "Teammates who can write in this project may type in your terminal"
            }
          >
            <input
              type="checkbox"
              checked={active.inputShared}
              disabled={shareInput.isPending || active.holdsOwnSecrets}
              onChange={(e) => shareInput.mutate({ projectId, terminalId: active.id, shared: e.target.checked })}
              data-testid="terminal-grant-input"
            />
            Let teammates type
          </label>
        ) : active ? (
          <span className="terminal-access" data-testid="terminal-access" data-can-type={active.canType}>
            {active.canType
              ? `${active.owner?.name ?? "Someone"}'s terminal · you can type`
              : `Watching ${active.owner?.name ?? "someone"}'s terminal · read-only`}
          </span>
        ) : null}
      </div>
      {endedChosen ? (
        <div className="center-message terminal-ended" data-testid="terminal-ended">
          <p>This terminal ended when the server restarted. Its processes and output are gone.</p>
          {canWrite && (
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => create.mutate({ projectId, ...tree })}
              disabled={create.isPending}
              data-testid="terminal-ended-new"
            >
              Open a new terminal
            </button>
          )}
        </div>
      ) : active ? (
        <div className="terminal-host" data-testid="terminal-host">
          <TerminalView
            key={active.id}
            projectId={projectId}
            terminalId={active.id}
            autoFocus={active.id === openedHere}
          />
        </div>
      ) : (
        <div className="center-message">
          {terminals.isPending ? (
            "Loading terminals…"
          ) : canWrite ? (
            <button
              type="button"
              className="btn"
              onClick={() => create.mutate({ projectId, ...tree })}
              disabled={create.isPending}
              data-testid="terminal-open"
            >
              Open a terminal
            </button>
          ) : (
            "No terminals are open."
          )}
        </div>
      )}
    </div>
  );
}
