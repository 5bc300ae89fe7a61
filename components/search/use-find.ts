"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { FileMatches, FindQueryInput } from "@/lib/search-schemas";
import { useTRPCClient } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { useTreeInput } from "@/components/ui/tree-context";

export type FindState = {
  status: "idle" | "searching" | "done" | "cancelled" | "error";
  files: FileMatches[];
  matches: number;
  limitHit: boolean;
  error?: string;
  ms?: number;
};

const IDLE: FindState = { status: "idle", files: [], matches: 0, limitHit: false };

/**
 * One search at a time over the tRPC WebSocket: results arrive in batches as ripgrep finds them.
 * A new search or `cancel` unsubscribes, which ends the server's generator and kills rg.
 */
export function useFind(projectId: string) {
  const client = useTRPCClient();
  const tree = useTreeInput();
  const [state, setState] = useState<FindState>(IDLE);
  const running = useRef<{ unsubscribe(): void } | null>(null);

  const stop = useCallback(() => {
    running.current?.unsubscribe();
    running.current = null;
  }, []);

  const run = useCallback(
    (query: FindQueryInput) => {
      stop();
      setState({ ...IDLE, status: "searching" });
      let files: FileMatches[] = [];
      let matches = 0;
      // Batches that arrive within a frame are drawn once, in that frame: a search with hundreds of
      // files is not re-rendered per batch, and the last batch shows together with the count.
      let frame: number | null = null;
      const draw = () => {
        frame = null;
        setState((s) => ({ ...s, files, matches }));
      };
      const finish = (next: Partial<FindState>) => {
        if (frame !== null) cancelAnimationFrame(frame);
        frame = null;
        setState((s) => ({ ...s, files, matches, ...next }));
        stop();
      };
      const subscription = client.search.find.subscribe(
        { projectId, ...tree, ...query },
        {
          onData: (event) => {
            if (event.type === "files") {
              files = files.concat(event.files);
              matches += event.files.reduce((n, f) => n + f.lines.reduce((m, l) => m + l.matches.length, 0), 0);
              frame ??= requestAnimationFrame(draw);
            } else if (event.type === "done") finish({ status: "done", limitHit: event.limitHit, ms: event.ms });
            else finish({ status: "error", error: event.message });
          },
          onError: (error) => finish({ status: "error", error: errorMessage(error) }),
        },
      );
      running.current = {
        unsubscribe: () => {
          if (frame !== null) cancelAnimationFrame(frame);
          frame = null;
          subscription.unsubscribe();
        },
      };
    },
    [client, projectId, stop],
  );

  const cancel = useCallback(() => {
    if (!running.current) return;
    stop();
    setState((s) => ({ ...s, status: "cancelled" }));
  }, [stop]);

  const clear = useCallback(() => {
    stop();
    setState(IDLE);
  }, [stop]);

  useEffect(() => stop, [stop]);

  return { state, run, cancel, clear };
}
