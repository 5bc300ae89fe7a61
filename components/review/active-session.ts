"use client";

import { useEffect, useSyncExternalStore } from "react";

// The agent session open in the agent panel, per project: the editor marks the lines that session
// changed, and the Changes tab reviews it. The panel registers it while the session is shown.

const open = new Map<string, string>();
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Marks `sessionId` as the project's open session while the calling component is mounted. */
export function useRegisterActiveSession(projectId: string, sessionId: string) {
  useEffect(() => {
    open.set(projectId, sessionId);
    notify();
    return () => {
      if (open.get(projectId) !== sessionId) return;
      open.delete(projectId);
      notify();
    };
  }, [projectId, sessionId]);
}

/** The session open in the panel, or null; any project when `projectId` is omitted (there is one IDE per page). */
export function useActiveSession(projectId?: string): string | null {
  return useSyncExternalStore(
    subscribe,
    () => (projectId ? (open.get(projectId) ?? null) : (open.values().next().value ?? null)),
    () => null,
  );
}

// Whether this page has an editor area to show the Changes tab in (the share-link page has none).
let hosts = 0;

/** Called by the editor area: the Changes button only shows when the tab has somewhere to open. */
export function useRegisterChangesHost() {
  useEffect(() => {
    hosts += 1;
    notify();
    return () => {
      hosts -= 1;
      notify();
    };
  }, []);
}

export function useHasChangesHost(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => hosts > 0,
    () => false,
  );
}
