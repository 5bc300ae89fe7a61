"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";

/** How often the open IDE asks which ports listen (the server reads the namespace's tables then, and only then). */
export const PORTS_POLL_MS = 3_000;

/** The ports listening in the project's workspace network, asked while the IDE is open; shared by the view and the notice. */
export function usePorts(projectId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.ports.list.queryOptions({ projectId }, { refetchInterval: PORTS_POLL_MS }));
}
