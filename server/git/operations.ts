import { EventEmitter } from "node:events";
import type { GitOperationEvent } from "@/lib/git-schemas";
import { GitError } from "./errors";

type Operation = {
  userId: string;
  controller: AbortController;
  events: EventEmitter;
  last: GitOperationEvent | null;
  finished: boolean;
};

const KEEP_FINISHED_MS = 60_000;

/**
 * Long git operations (clone, fetch, pull, push) by id: the page picks the id, subscribes to its
 * progress, then starts the operation with it; it may cancel it. An id belongs to the person who
 * first used it, and only they see or cancel it.
 */
export function createGitOperations() {
  const operations = new Map<string, Operation>();

  function claim(id: string, userId: string): Operation {
    let op = operations.get(id);
    if (!op) {
      op = { userId, controller: new AbortController(), events: new EventEmitter(), last: null, finished: false };
      op.events.setMaxListeners(20);
      operations.set(id, op);
    }
    if (op.userId !== userId) throw new GitError("NOT_FOUND", "No such git operation.");
    return op;
  }

  function emit(id: string, op: Operation, event: GitOperationEvent) {
    op.last = event;
    if (event.kind !== "progress") {
      op.finished = true;
      setTimeout(() => operations.get(id) === op && operations.delete(id), KEEP_FINISHED_MS).unref();
    }
    op.events.emit("event", event);
  }

  return {
    /** Runs `task` as operation `id`, reporting its progress and how it ended. */
    async run<T>(
      id: string,
      userId: string,
      task: (
        signal: AbortSignal,
        progress: (event: Extract<GitOperationEvent, { kind: "progress" }>) => void,
      ) => Promise<T>,
    ): Promise<T> {
      const op = claim(id, userId);
      if (op.finished || op.last) throw new GitError("BAD_INPUT", "This operation id was already used.");
      try {
        const result = await task(op.controller.signal, (event) => emit(id, op, event));
        emit(id, op, { kind: "done" });
        return result;
      } catch (error) {
        const known = error instanceof GitError ? error : new GitError("FAILED", (error as Error).message);
        emit(id, op, { kind: "failed", code: known.code, message: known.message });
        throw error;
      }
    },

    /**
     * The operation's events until it ends (the latest one first, if it already started). An
     * iterator rather than a generator, so that ending the subscription releases it at once even
     * while no event is pending.
     */
    watch(id: string, userId: string, signal?: AbortSignal): AsyncIterableIterator<GitOperationEvent> {
      const op = claim(id, userId);
      const queue: GitOperationEvent[] = op.last ? [op.last] : [];
      let ended = op.finished;
      let wake: (() => void) | null = null;
      const listener = (event: GitOperationEvent) => {
        queue.push(event);
        wake?.();
      };
      const stop = () => {
        ended = true;
        op.events.off("event", listener);
        wake?.();
      };
      if (!ended) op.events.on("event", listener);
      signal?.addEventListener("abort", stop, { once: true });
      const iterator: AsyncIterableIterator<GitOperationEvent> = {
        [Symbol.asyncIterator]: () => iterator,
        async next() {
          while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          const event = queue.shift();
          if (!event) return { done: true, value: undefined };
          if (event.kind !== "progress") stop();
          return { done: false, value: event };
        },
        async return() {
          stop();
          queue.length = 0;
          return { done: true, value: undefined };
        },
      };
      return iterator;
    },

    cancel(id: string, userId: string): boolean {
      const op = operations.get(id);
      if (!op || op.userId !== userId || op.finished) return false;
      op.controller.abort();
      return true;
    },
  };
}

export type GitOperations = ReturnType<typeof createGitOperations>;
