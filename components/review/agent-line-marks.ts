"use client";

import "@/components/review/review.css";
import { useQuery } from "@tanstack/react-query";
import type { LineMark } from "@/components/editor/line-marks";
import { useMemo } from "react";
import { useActiveSession } from "@/components/review/active-session";
import { changedLines } from "@/components/review/review-hunks";
import { useTRPC } from "@/components/trpc-provider";

/**
 * The lines that the agent session open in the panel changed in `path`, against the session's
 * review base (what is still to review); the editor draws them (components/editor/line-marks.ts).
 */
export function useAgentLineMarks(path: string): LineMark[] {
  const trpc = useTRPC();
  const sessionId = useActiveSession();
  const changes = useQuery(
    trpc.review.changes.queryOptions({ sessionId: sessionId ?? "" }, { enabled: sessionId !== null }),
  );
  const changed =
    sessionId !== null &&
    !!changes.data?.files.some((f) => f.path === path && f.hunks !== null && f.status !== "deleted");
  const file = useQuery(trpc.review.file.queryOptions({ sessionId: sessionId ?? "", path }, { enabled: changed }));
  const hunks = changed ? file.data?.hunks : undefined;
  return useMemo(() => changedLines(hunks ?? []), [hunks]);
}
