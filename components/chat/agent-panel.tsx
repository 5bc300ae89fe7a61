"use client";

import "@/components/chat/chat.css";
import { useQuery } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import type { Transcript } from "@/lib/session-transcript";
import { MemoryPanel } from "@/components/agent/memory-panel";
import { NotesPanel } from "@/components/agent/notes-panel";
import { NewSession } from "@/components/chat/new-session";
import { useOpenSession } from "@/components/chat/open-session-context";
import { SessionList } from "@/components/chat/session-list";
import { SessionView } from "@/components/chat/session-view";
import { useTRPC } from "@/components/trpc-provider";
import { useCommands } from "@/components/ui/commands";

// The IDE's right-hand agent panel: sessions, the open session's conversation, its notes, and the
// agent's memory, as tabs (TABS). The review of a session's changes is not a tab: it opens from
// the session's header (components/review/changes-button.tsx), beside what it reviews.

const TABS = [
  { id: "chat", label: "Chat" },
  { id: "notes", label: "Notes" },
  { id: "memory", label: "Memory" },
] as const;
type TabId = (typeof TABS)[number]["id"];

type View = { kind: "list" } | { kind: "new" } | { kind: "session"; id: string; trail: string[] };

type AgentPanelProps = { projectId: string; projectName: string; canWrite: boolean; me: { id: string; name: string } };

const storageKey = (projectId: string) => `tandem-agent-session:${projectId}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function AgentPanel({ projectId, projectName, canWrite, me }: AgentPanelProps) {
  const trpc = useTRPC();
  const [tab, setTab] = useState<TabId>("chat");
  const [view, setView] = useState<View | null>(null);
  const sessions = useQuery(trpc.session.list.queryOptions({ projectId, parentId: null }, { refetchInterval: 5_000 }));
  const [pending, setPending] = useState<{ sessionId: string; count: number } | null>(null);

  // A link to a session (`/p/<project>?session=<id>`, as in an agent commit's Tandem-Session trailer).
  const linkedId = useSearchParams().get("session");
  const linked = useQuery(
    trpc.session.get.queryOptions(
      { sessionId: linkedId ?? "" },
      { enabled: !!linkedId && UUID.test(linkedId), retry: false },
    ),
  );
  const linkedSession = linked.data?.projectId === projectId ? linked.data : null;
  const linkSettled = !linkedId || !UUID.test(linkedId) || !linked.isPending;

  // Open the linked session, else reopen the one this browser had open, else the list (or a new
  // session when there is none).
  useEffect(() => {
    if (view || !sessions.data || !linkSettled) return;
    if (linkedId) {
      // The link has done its work: the address goes back to the project's, so that it does not
      // name a session other than the one shown once people move on.
      const url = new URL(window.location.href);
      url.searchParams.delete("session");
      window.history.replaceState(null, "", url);
    }
    if (linkedSession) {
      if (!linkedSession.parentId) localStorage.setItem(storageKey(projectId), linkedSession.id);
      setView({ kind: "session", id: linkedSession.id, trail: linkedSession.parentId ? [linkedSession.parentId] : [] });
      return;
    }
    const last = localStorage.getItem(storageKey(projectId));
    if (last && sessions.data.some((s) => s.id === last)) setView({ kind: "session", id: last, trail: [] });
    else setView(sessions.data.length ? { kind: "list" } : { kind: "new" });
  }, [view, sessions.data, projectId, linkSettled, linkedId, linkedSession]);

  const open = useCallback(
    (id: string, trail: string[] = []) => {
      if (!trail.length) localStorage.setItem(storageKey(projectId), id);
      setView({ kind: "session", id, trail });
      setTab("chat");
    },
    [projectId],
  );
  const openChild = useCallback(
    (id: string) => setView((v) => ({ kind: "session", id, trail: v?.kind === "session" ? [...v.trail, v.id] : [] })),
    [],
  );
  const onTranscript = useCallback(
    (sessionId: string, t: Transcript) => setPending({ sessionId, count: t.pending.length }),
    [],
  );

  const openId = view?.kind === "session" ? view.id : null;
  const { setSessionId } = useOpenSession();
  useEffect(() => setSessionId(openId), [openId, setSessionId]);
  const current = pending && pending.sessionId === openId ? pending.count : 0;
  const waiting =
    current + (sessions.data ?? []).filter((s) => s.id !== openId && s.status === "waiting_approval").length;

  // The browser tab says when something waits for someone, without a sound.
  useEffect(() => {
    const base = `${projectName} · Tandem`;
    document.title = waiting ? `(${waiting}) Waiting for you · ${base}` : base;
  }, [waiting, projectName]);

  // Alt+A: jump to what waits (an approval or a question). Alt+I: the message box.
  const waitingElsewhere = (sessions.data ?? []).find((s) => s.id !== openId && s.status === "waiting_approval")?.id;
  const jumpToWaiting = useCallback(() => {
    const card = document.querySelector<HTMLElement>("[data-testid=approval-card], .question.approval");
    if (!card) {
      // What waits is in another session: open it (its card is then one Alt+A away).
      if (waitingElsewhere) open(waitingElsewhere);
      return !!waitingElsewhere;
    }
    setTab("chat");
    card.scrollIntoView({ block: "nearest" });
    (card.matches("[data-testid=approval-card]")
      ? card
      : (card.querySelector<HTMLElement>("button, input") ?? card)
    ).focus();
    return true;
  }, [waitingElsewhere, open]);
  const focusComposer = useCallback(() => {
    setTab("chat");
    requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-testid=composer-input]")?.focus());
  }, []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.code === "KeyA" && jumpToWaiting()) event.preventDefault();
      else if (event.code === "KeyI") {
        event.preventDefault();
        focusComposer();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [jumpToWaiting, focusComposer]);

  useCommands([
    ...(canWrite
      ? [
          {
            id: "session-new",
            label: "New agent session",
            run: () => (setTab("chat"), setView({ kind: "new" })),
            takesFocus: true,
          },
        ]
      : []),
    { id: "session-list", label: "Agent sessions", run: () => (setTab("chat"), setView({ kind: "list" })) },
    { id: "composer", label: "Focus agent message box", keys: "Alt+I", run: focusComposer, takesFocus: true },
    ...(waiting > 0
      ? [
          {
            id: "waiting",
            label: `Go to what waits for you (${waiting})`,
            keys: "Alt+A",
            run: () => requestAnimationFrame(() => jumpToWaiting()),
            takesFocus: true,
          },
        ]
      : []),
    ...TABS.filter((t) => t.id !== tab).map((t) => ({
      id: `tab-${t.id}`,
      label: `Show agent ${t.label.toLowerCase()}`,
      run: () => setTab(t.id),
    })),
  ]);

  return (
    <div className="pane agent-panel" data-testid="agent-panel">
      <div className="agent-tabs" role="tablist" aria-label="Agent">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={tab === t.id ? "agent-tab active" : "agent-tab"}
            onClick={() => setTab(t.id)}
            data-testid={`agent-tab-${t.id}`}
          >
            {t.label}
            {t.id === "chat" && waiting > 0 && (
              <span
                className="badge"
                data-testid="waiting-badge"
                role="status"
                aria-label={`${waiting} waiting for you`}
              >
                {waiting}
              </span>
            )}
          </button>
        ))}
      </div>
      <div className="agent-body" role="tabpanel">
        {tab === "chat" &&
          (!view ? (
            <div className="center-message">Loading…</div>
          ) : view.kind === "list" ? (
            <SessionList
              projectId={projectId}
              sessions={sessions.data ?? []}
              canWrite={canWrite}
              onOpen={open}
              onNew={() => setView({ kind: "new" })}
            />
          ) : view.kind === "new" ? (
            <NewSession
              projectId={projectId}
              canWrite={canWrite}
              onCreated={open}
              onCancel={sessions.data?.length ? () => setView({ kind: "list" }) : null}
            />
          ) : (
            <SessionView
              key={view.id}
              projectId={projectId}
              projectName={projectName}
              sessionId={view.id}
              me={me}
              backLabel={view.trail.length ? "Parent session" : "Sessions"}
              onBack={() =>
                view.trail.length
                  ? setView({ kind: "session", id: view.trail.at(-1)!, trail: view.trail.slice(0, -1) })
                  : setView({ kind: "list" })
              }
              onOpenSession={openChild}
              onSwitchSession={(id) => setView({ kind: "session", id, trail: [] })}
              onShowMemory={() => setTab("memory")}
              onTranscript={onTranscript}
            />
          ))}
        {tab === "notes" &&
          (openId ? (
            <NotesPanel sessionId={openId} />
          ) : (
            <div className="center-message">Open a session to see its notes.</div>
          ))}
        {tab === "memory" && <MemoryPanel projectId={projectId} canWrite={canWrite} />}
      </div>
    </div>
  );
}
