"use client";

import { useSubscription } from "@trpc/tanstack-react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import {
  applyStreamItem,
  committedEvents,
  emptyLiveLog,
  type LiveLog,
  type SessionStreamItem,
} from "@/lib/session-events";
import { foldTranscript, type Transcript } from "@/lib/session-transcript";
import { useTRPC } from "@/components/trpc-provider";

// One session's live log: `session.events` from the last seq we hold, folded with the shared fold
// (lib/session-transcript.ts). Logs are kept per session for the page's lifetime, so switching
// back to a session asks only for what it missed. On a dropped socket the wsLink resubscribes
// with the last tracked seq; after a subscription error we start a new one from `log.lastSeq`.
// `applyStreamItem` ignores what we already hold, so neither path can duplicate an event.

const logs = new Map<string, LiveLog>();

/** Live output of running tools (shell lines), shown while they run and never stored. */
export type SubagentLive = { step: number; tool: string | null; lines: string };
export type ToolProgress = Map<string, { output: string; status?: string; children?: Map<string, SubagentLive> }>;
const MAX_PROGRESS_CHARS = 64_000;

export type SessionConnection = "connecting" | "live" | "offline";

export function useSessionLog(sessionId: string) {
  const trpc = useTRPC();
  const log = useMemo(() => {
    let found = logs.get(sessionId);
    if (!found) logs.set(sessionId, (found = emptyLiveLog()));
    return found;
  }, [sessionId]);
  const progress = useRef<ToolProgress>(new Map());
  const [version, setVersion] = useState(0);
  const frame = useRef<number | null>(null);
  // The seq to subscribe after; changes only to start a fresh subscription (never per event).
  const [from, setFrom] = useState(() => ({ sessionId, afterSeq: log.lastSeq, attempt: 0 }));
  if (from.sessionId !== sessionId) setFrom({ sessionId, afterSeq: log.lastSeq, attempt: 0 });

  useEffect(() => {
    progress.current = new Map();
    setVersion((v) => v + 1);
  }, [sessionId]);

  // Many items arrive at once (a long backlog, fast streaming): render once per frame.
  const schedule = () => {
    if (frame.current !== null) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      setVersion((v) => v + 1);
    });
  };
  useEffect(() => () => void (frame.current !== null && cancelAnimationFrame(frame.current)), []);

  const onItem = (item: SessionStreamItem) => {
    if (item.kind === "progress") {
      const current = progress.current.get(item.toolCallId) ?? { output: "" };
      if (item.progress.type === "output")
        current.output = (current.output + item.progress.text).slice(-MAX_PROGRESS_CHARS);
      else if (item.progress.type === "subagent") {
        const { childSessionId, step, tool, lines } = item.progress;
        current.children = new Map(current.children).set(childSessionId, { step, tool, lines });
      } else current.status = item.progress.text;
      progress.current.set(item.toolCallId, current);
    } else {
      applyStreamItem(log, item);
      for (const event of committedEvents(item))
        if (event.type === "tool_result") progress.current.delete(event.payload.toolCallId);
      // A long history comes in several batches: fold and render it once, when the last arrives.
      if (item.kind === "events" && item.more) return;
    }
    schedule();
  };

  const subscription = useSubscription(
    trpc.session.events.subscriptionOptions(
      { sessionId: from.sessionId, afterSeq: from.afterSeq },
      {
        enabled: from.sessionId === sessionId,
        onData: (tracked) => onItem(tracked.data as SessionStreamItem),
      },
    ),
  );

  // A subscription that failed (the server restarted, the socket gave up): start again from
  // what we hold, after a short pause.
  const failed = subscription.status === "error";
  useEffect(() => {
    if (!failed) return;
    const timer = setTimeout(
      () => setFrom((f) => ({ sessionId: f.sessionId, afterSeq: log.lastSeq, attempt: f.attempt + 1 })),
      1500,
    );
    return () => clearTimeout(timer);
  }, [failed, log]);

  const transcript: Transcript = useMemo(
    () => foldTranscript(log.events, log.provisional),
    // `version` changes whenever the (mutable) log does.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [log, version],
  );

  const connection: SessionConnection = subscription.status === "pending" ? "live" : failed ? "offline" : "connecting";
  return {
    transcript,
    progress: progress.current,
    connection,
    loaded: log.lastSeq > 0 || subscription.status === "pending",
    version,
  };
}
