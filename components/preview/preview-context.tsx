"use client";

import { createContext, type ReactNode, useContext, useMemo, useState } from "react";

// Which port the IDE's Preview panel shows (null: the panel is closed). The Ports view, the notice
// of a new port and the panel itself open and close it.

type PreviewState = { port: number | null; open(port: number): void; close(): void };

const PreviewContext = createContext<PreviewState>({ port: null, open: () => {}, close: () => {} });

export function PreviewProvider({ children }: { children: ReactNode }) {
  const [port, setPort] = useState<number | null>(null);
  const value = useMemo(() => ({ port, open: setPort, close: () => setPort(null) }), [port]);
  return <PreviewContext.Provider value={value}>{children}</PreviewContext.Provider>;
}

export const usePreview = () => useContext(PreviewContext);
