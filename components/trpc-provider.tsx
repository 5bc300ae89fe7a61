"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, createWSClient, httpBatchLink, httpLink, splitLink, wsLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@/server/api/root";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        refetchOnWindowFocus: false,
        retry: (count, error) => count < 2 && !isClientError(error),
      },
    },
  });
}

// 4xx answers (not found, forbidden, bad input) will not change on a retry.
function isClientError(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: number } } | null)?.data?.httpStatus;
  return typeof status === "number" && status >= 400 && status < 500;
}

const webSocketUrl = () =>
  `${window.location.protocol === "https:" ? "wss" : "ws"}://${window.location.host}/api/trpc/ws`;

/**
 * Calls whose time grows with the repository (git status on a large checkout, the file list that
 * Quick Open searches, a push) go on requests of their own. A batch is answered when its slowest
 * call is, and the IDE's first batch (the project, the explorer's root, the sessions) would
 * otherwise wait for git. So do the reads of a file someone opened: a click on the explorer's row
 * as the IDE's panels ask for their data (cold, in bench:open) put the file's text into the
 * panels' batch of eight, and it waited ~190 ms for the slowest of them.
 */
const ownRequest = (path: string) =>
  path.startsWith("git.") || path === "fs.files" || path === "fs.preview" || path === "fs.read";

/** A share-link page (/s/<token>) presents its token on every call: as a header, and on the socket. */
function makeTrpcClient(shareToken?: string) {
  // Lazy: the socket opens with the first subscription, so it carries the login cookie of that moment.
  const wsClient = createWSClient({
    url: webSocketUrl,
    lazy: { enabled: true, closeMs: 5_000 },
    connectionParams: shareToken ? { shareToken } : undefined,
  });
  const http = {
    url: "/api/trpc",
    transformer: superjson,
    headers: shareToken ? { "x-tandem-share": shareToken } : undefined,
  };
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: wsLink({ client: wsClient, transformer: superjson }),
        false: splitLink({
          condition: (op) => ownRequest(op.path),
          true: httpLink(http),
          false: httpBatchLink(http),
        }),
      }),
    ],
  });
}

export function TrpcProvider({ children, shareToken }: { children: ReactNode; shareToken?: string }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() => makeTrpcClient(shareToken));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
