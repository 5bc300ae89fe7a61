"use client";

import type { inferRouterOutputs } from "@trpc/server";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "@/components/trpc-provider";

// The project's sessions board, live: the server sends its rows, then each session's row again when
// it changes (board.watch); a reconnect starts again from the rows. No polling.

/** A board row; `branch` once sessions run on a branch of their own. */
export type BoardRow = inferRouterOutputs<AppRouter>["board"]["list"][number] & { branch?: string | null };

export type BoardState = "working" | "approval" | "question" | "done" | "failed" | "interrupted";

export const BOARD_STATES: Record<BoardState, string> = {
  working: "Working",
  approval: "Waiting for approval",
  question: "Asking a question",
  done: "Done",
  failed: "Failed",
  interrupted: "Interrupted",
};

export function stateOf(row: Pick<BoardRow, "status" | "waitingOn">): BoardState {
  switch (row.status) {
    case "running":
      return "working";
    case "waiting_approval":
      return row.waitingOn === "question" ? "question" : "approval";
    case "failed":
      return "failed";
    case "interrupted":
      return "interrupted";
    default:
      return "done";
  }
}

/** The session waits for `me`: they started it, or they may answer its approvals (server/api/access.ts). */
export function waitsFor(row: BoardRow, me: { id: string }, canWrite: boolean): boolean {
  return row.status === "waiting_approval" && (row.authorId === me.id || (canWrite && row.approvalsBy !== "author"));
}

const byActivity = (a: BoardRow, b: BoardRow) => b.updatedAt.getTime() - a.updatedAt.getTime();

/** The board's rows (null until the first arrive); `onChange` is called after each update. */
export function useSessionBoard(projectId: string, onChange?: () => void): BoardRow[] | null {
  const trpc = useTRPC();
  const [rows, setRows] = useState<BoardRow[] | null>(null);
  useSubscription(
    trpc.board.watch.subscriptionOptions(
      { projectId },
      {
        onData: (update) => {
          setRows((current) => {
            if (update.kind === "rows") return [...update.rows].sort(byActivity);
            const others = (current ?? []).filter(
              (r) => r.id !== (update.kind === "row" ? update.row.id : update.sessionId),
            );
            return update.kind === "row" ? [...others, update.row].sort(byActivity) : others;
          });
          onChange?.();
        },
      },
    ),
  );
  return rows;
}
