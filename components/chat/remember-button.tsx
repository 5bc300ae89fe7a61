"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";

/** "Remember this": keeps a message as one of the person's own memories (user scope), which the agent recalls in later sessions. */
export function RememberButton({ projectId, text }: { projectId: string; text: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation(
    trpc.memory.save.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries(trpc.memory.list.queryFilter()),
    }),
  );
  const key = `remembered: ${text.replace(/\s+/g, " ").trim().slice(0, 80)}`;
  return (
    <button
      type="button"
      className="btn btn-ghost btn-sm remember"
      disabled={save.isPending || save.isSuccess}
      title={
        save.error ? save.error.message : "Keep this as one of your memories; the agent recalls it in later sessions"
      }
      onClick={() => save.mutate({ projectId, scope: "user", key, value: text.slice(0, 20_000) })}
      data-testid="remember-this"
    >
      {save.isSuccess ? "Remembered" : save.error ? "Could not remember" : "Remember this"}
    </button>
  );
}
