import type { FileChange } from "@/lib/fs-schemas";

/** A reader that stops reading loses its oldest changes rather than growing without bound. */
const MAX_QUEUE = 10_000;

/**
 * The file changes one reader has not read yet, as an async iterator: its source (a watcher, the
 * file-change bus) pushes batches, the reader pulls one change at a time. It ends when the reader
 * calls `return()` or `signal` aborts, and then runs the source's release at once.
 *
 * Written by hand rather than as an async generator: a generator parked on "wait for the next
 * change" cannot be returned from until a change comes, which would leak the source.
 */
export class ChangeQueue<T = FileChange> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting?: (result: IteratorResult<T>) => void;
  private released?: () => void;
  private done = false;
  private started: Promise<void> = Promise.resolve();
  private readonly onAbort = () => this.close();

  constructor(private readonly signal?: AbortSignal) {
    signal?.addEventListener("abort", this.onAbort);
    if (signal?.aborted) this.close();
  }

  /** The source's start: reads wait for it, and fail with its error if it could not start. */
  startWith(started: Promise<void>): void {
    this.started = started;
    started.catch(() => this.close());
  }

  get closed(): boolean {
    return this.done;
  }

  /** What to release when the reader leaves; run at once if it has left already. */
  onClose(release: () => void): void {
    if (this.done) release();
    else this.released = release;
  }

  push(changes: readonly T[]): void {
    if (this.done) return;
    this.queue.push(...changes);
    if (this.queue.length > MAX_QUEUE) this.queue.splice(0, this.queue.length - MAX_QUEUE);
    const waiting = this.waiting;
    const next = waiting && this.queue.shift();
    if (waiting && next) {
      this.waiting = undefined;
      waiting({ value: next, done: false });
    }
  }

  async next(): Promise<IteratorResult<T>> {
    await this.started;
    const value = this.queue.shift();
    if (value) return { value, done: false };
    if (this.done) return { value: undefined, done: true };
    return new Promise((resolve) => (this.waiting = resolve));
  }

  async return(): Promise<IteratorResult<T>> {
    this.close();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  close(): void {
    if (this.done) return;
    this.done = true;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.released?.();
    this.released = undefined;
    this.queue.length = 0;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
  }
}
