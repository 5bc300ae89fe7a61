"use client";

import { createContext, useContext, useMemo, useState, type ReactNode } from "react";

type OpenSession = { sessionId: string | null; setSessionId: (sessionId: string | null) => void };

const OpenSessionContext = createContext<OpenSession>({ sessionId: null, setSessionId: () => undefined });

/**
 * The agent session open in the IDE's agent panel, for the views beside it: Source Control records
 * a pull request it opens in that session, so everyone in the session sees the link.
 */
export function OpenSessionProvider({ children }: { children: ReactNode }) {
  const [sessionId, setSessionId] = useState<string | null>(null);
  const value = useMemo(() => ({ sessionId, setSessionId }), [sessionId]);
  return <OpenSessionContext.Provider value={value}>{children}</OpenSessionContext.Provider>;
}

export const useOpenSession = () => useContext(OpenSessionContext);
