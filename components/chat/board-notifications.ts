"use client";

import { useEffect, useRef, useSyncExternalStore } from "react";
import { type BoardRow, stateOf } from "@/components/chat/use-session-board";

// Browser notifications for the sessions a person started: one when a session starts to wait for
// them, one when it finishes or fails. Only after they asked for them with the board's button
// (the browser's permission prompt comes from that click, never on load); kept per browser.

const KEY = "tandem-session-notifications";
const listeners = new Set<() => void>();

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

const supported = () => typeof window !== "undefined" && "Notification" in window;
const enabled = () => supported() && Notification.permission === "granted" && localStorage.getItem(KEY) === "on";

/** Whether notifications are on here, and the calls that turn them on (asking the browser) and off. */
export function useNotificationConsent() {
  const on = useSyncExternalStore(subscribe, enabled, () => false);
  return {
    supported: useSyncExternalStore(subscribe, supported, () => false),
    on,
    async enable() {
      const permission = await Notification.requestPermission();
      if (permission === "granted") localStorage.setItem(KEY, "on");
      listeners.forEach((l) => l());
      return permission;
    },
    disable() {
      localStorage.removeItem(KEY);
      listeners.forEach((l) => l());
    },
  };
}

/** Notifies `me` of their sessions' moves, when they turned notifications on. */
export function useSessionNotifications(rows: BoardRow[] | null, me: { id: string }, projectName: string) {
  const seen = useRef(new Map<string, string>());
  useEffect(() => {
    if (!rows) return;
    const before = seen.current;
    seen.current = new Map(rows.map((r) => [r.id, stateOf(r)]));
    if (!enabled()) return;
    for (const row of rows) {
      const was = before.get(row.id);
      const now = stateOf(row);
      if (row.authorId !== me.id || !was || was === now) continue;
      const text =
        now === "approval"
          ? "waits for your approval"
          : now === "question"
            ? "asks you a question"
            : was === "working" && now === "done"
              ? "finished"
              : was === "working" && (now === "failed" || now === "interrupted")
                ? `stopped: ${now}`
                : null;
      if (text) new Notification(`${row.title} ${text}`, { body: projectName, tag: `tandem-${row.id}` });
    }
  }, [rows, me.id, projectName]);
}
