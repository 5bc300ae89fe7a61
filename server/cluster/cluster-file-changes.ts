import { REREAD_ALL, type FileChange } from "@/lib/fs-schemas";
import type { FileChanges } from "@/server/bus/file-changes";
import type { WorkspaceHost } from "@/server/cluster/workspace-host";

// fs.changes in a cluster: a viewer gets its project's changes from the file-change bus, which the
// project's holder feeds from its watcher (held-workspace-watch.ts), on whichever instance the
// viewer is connected to, the holder included (there too only through the bus: each change once).
// While the viewer is connected the project is kept held, so that someone watches it.

/** How often a viewer's instance makes sure the project is held: under the lease's lapse (6 s). */
const HOLD_EVERY_MS = 3_000;
/** A viewer that stops reading loses its oldest changes rather than growing without bound. */
const MAX_QUEUE = 10_000;

export function followProjectFiles(
  options: { fileChanges: FileChanges; host: WorkspaceHost; log: (line: string) => void },
  projectId: string,
  signal?: AbortSignal,
): AsyncIterableIterator<FileChange> {
  return new BusChangeStream(options, projectId, signal);
}

// Written by hand rather than as an async generator, like watch.ts's ChangeStream: ending the
// subscription must release it at once even when no change is pending.
class BusChangeStream implements AsyncIterableIterator<FileChange> {
  private readonly queue: FileChange[] = [];
  private waiting?: (result: IteratorResult<FileChange>) => void;
  private closed = false;
  private readonly unsubscribe: () => void;
  private readonly timer: NodeJS.Timeout;
  private readonly onAbort = () => this.close();

  constructor(
    private readonly options: { fileChanges: FileChanges; host: WorkspaceHost; log: (line: string) => void },
    private readonly projectId: string,
    private readonly signal?: AbortSignal,
  ) {
    this.unsubscribe = options.fileChanges.subscribe(projectId, (news) => this.push(news.kind === "changes" ? news.changes : [REREAD_ALL]));
    this.timer = setInterval(() => this.hold(), HOLD_EVERY_MS);
    this.hold();
    signal?.addEventListener("abort", this.onAbort);
    if (signal?.aborted) this.close();
  }

  private hold() {
    this.options.host.hold(this.projectId).catch((error: unknown) => this.options.log(`file changes: could not make sure project ${this.projectId} is watched: ${(error as Error).message}`));
  }

  private push(changes: readonly FileChange[]) {
    if (this.closed) return;
    this.queue.push(...changes);
    if (this.queue.length > MAX_QUEUE) this.queue.splice(0, this.queue.length - MAX_QUEUE);
    const waiting = this.waiting;
    const next = waiting && this.queue.shift();
    if (waiting && next) {
      this.waiting = undefined;
      waiting({ value: next, done: false });
    }
  }

  async next(): Promise<IteratorResult<FileChange>> {
    const value = this.queue.shift();
    if (value) return { value, done: false };
    if (this.closed) return { value: undefined, done: true };
    return new Promise((resolve) => (this.waiting = resolve));
  }

  async return(): Promise<IteratorResult<FileChange>> {
    this.close();
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<FileChange> {
    return this;
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe();
    this.signal?.removeEventListener("abort", this.onAbort);
    this.queue.length = 0;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
  }
}
