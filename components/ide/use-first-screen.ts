"use client";

import { type QueryFunctionContext, type QueryKey, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import { useTRPC } from "@/components/trpc-provider";
import { FIRST_SCREEN_GLOBAL, type FirstScreenRequest } from "@/lib/first-screen";

type QueryOptions = { queryKey: QueryKey; queryFn: (context: QueryFunctionContext) => Promise<unknown> };
type Procedure = { queryOptions: (input: unknown) => QueryOptions };
type Serialized = Parameters<typeof superjson.deserialize>[0];
type BatchEntry = { result?: { data?: Serialized }; error?: Serialized } | undefined;

/**
 * Takes, once, the first screen's batch that the page's HTML started for this project
 * (lib/first-screen.ts): each of its queries starts fetching at once and resolves from that
 * answer (its data, or the error the server answered), or asks the server anew where none came. The components
 * that show them find them fetching or fetched and ask no more. Called before the IDE's queries.
 */
export function useFirstScreen(projectId: string): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  useState(() => {
    if (typeof window === "undefined") return;
    const store = window as unknown as Record<string, FirstScreenRequest | undefined>;
    const request = store[FIRST_SCREEN_GLOBAL];
    // Once: a later visit to the page within this document (client navigation) asks as usual.
    delete store[FIRST_SCREEN_GLOBAL];
    if (!request || request.projectId !== projectId) return;
    request.queries.forEach(([path, input], index) => {
      const procedure = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], trpc);
      const options = (procedure as Procedure).queryOptions(input);
      // Set before any component subscribes: one that mounts once the answer holds an error would
      // otherwise ask again for the same refusal (retryOnMount), a second request for nothing.
      queryClient.setQueryDefaults(options.queryKey, { retryOnMount: false });
      void queryClient.prefetchQuery({
        queryKey: options.queryKey,
        queryFn: async (context) => {
          const entry = ((await request.answer) as BatchEntry[] | null)?.[index];
          if (entry?.result?.data) return superjson.deserialize(entry.result.data);
          // The server's answer was an error (a project the person may not open): the query holds
          // it as its own request would have got it.
          if (entry?.error) throw TRPCClientError.from({ error: superjson.deserialize(entry.error) });
          return options.queryFn(context);
        },
      });
    });
  });
}
