"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import type { Transcript } from "@/lib/session-transcript";
import { useOpenSession } from "@/components/chat/open-session-context";
import { useSessionBoard, waitsFor } from "@/components/chat/use-session-board";
import { useTRPC } from "@/components/trpc-provider";
import { useCommands } from "@/components/ui/commands";

// Which agent session the IDE's agent panel shows (the list, a new one, or one session and the
// trail of parents it was reached through), and what waits for people across sessions. Kept by the
// panel, not by the Chat tab, so it survives a look at another tab. `show` asks the panel for one
// of its tabs ("chat", or "memory" from a session's memory link). The sessions board's live rows
// (use-session-board.ts) keep the list fresh and say what waits for whom.

export type SessionsView = { kind: "list" } | { kind: "new" } | { kind: "session"; id: string; trail: string[] };

export type AgentSessions = ReturnType<typeof useAgentSessions>;

const storageKey = (projectId: string) => `tandem-agent-session:${projectId}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function useAgentSessions({
  projectId,
  projectName,
  canWrite,
  me,
  show,
}: {
  projectId: string;
  projectName: string;
  canWrite: boolean;
  me: { id: string; name: string };
  show: (tab: "chat") => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [view, setView] = useState<SessionsView | null>(null);
  const sessions = useQuery(trpc.session.list.queryOptions({ projectId, parentId: null }));
  const board = useSessionBoard(
    projectId,
    useCallback(
      () => void queryClient.invalidateQueries(trpc.session.list.queryFilter({ projectId, parentId: null })),
      [queryClient, trpc, projectId],
    ),
  );
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
      show("chat");
    },
    [projectId, show],
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
  // The open session counts what its transcript shows waiting; the others, each session that waits for me.
  const waitingRows = (board ?? []).filter((r) => r.id !== openId && waitsFor(r, me, canWrite));
  const waiting = current + waitingRows.length;

  // The browser tab says when something waits for someone, without a sound.
  useEffect(() => {
    const base = `${projectName} · Tandem`;
    document.title = waiting ? `(${waiting}) Waiting for you · ${base}` : base;
  }, [waiting, projectName]);

  // Alt+A: jump to what waits (an approval or a question). Alt+I: the message box.
  const waitingElsewhere = waitingRows[0]?.id;
  const jumpToWaiting = useCallback(() => {
    const card = document.querySelector<HTMLElement>("[data-testid=approval-card], .question.approval");
    if (!card) {
      // What waits is in another session: open it (its card is then one Alt+A away).
      if (waitingElsewhere) open(waitingElsewhere);
      return !!waitingElsewhere;
    }
    show("chat");
    card.scrollIntoView({ block: "nearest" });
    (card.matches("[data-testid=approval-card]")
      ? card
      : (card.querySelector<HTMLElement>("button, input") ?? card)
    ).focus();
    return true;
  }, [waitingElsewhere, open, show]);
  const focusComposer = useCallback(() => {
    show("chat");
    requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-testid=composer-input]")?.focus());
  }, [show]);
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
            run: () => (show("chat"), setView({ kind: "new" })),
            takesFocus: true,
          },
        ]
      : []),
    { id: "session-list", label: "Agent sessions", run: () => (show("chat"), setView({ kind: "list" })) },
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
  ]);

  return { sessions: sessions.data, board, view, setView, open, openChild, onTranscript, openId, waiting };
}
