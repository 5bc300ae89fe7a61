import type { FileChange } from "@/lib/fs-schemas";
import type { FileMatch, QuickOpenReply, QuickOpenRequest } from "./quick-open";

type Ask = {
  query: string;
  recent: string[];
  limit: number;
  answer: Promise<FileMatch[] | null>;
  resolve: (matches: FileMatch[] | null) => void;
  reject: (error: Error) => void;
};

/**
 * The page's handle on quick open's worker (quick-open-worker.ts), started on first use. One
 * ranking runs at a time; keys typed meanwhile wait as one, the latest, and the ones it replaced
 * resolve to null: a fast typist never queues work the list would only throw away. File changes
 * are gathered and sent in one message.
 */
export class QuickOpenIndex {
  private worker: Worker | null = null;
  /** The listing the worker was given, while no file change has been applied on top of it. */
  private holds: string[] | null = null;
  private fed = false;
  private changes: Pick<FileChange, "type" | "path">[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private running: Ask | null = null;
  private waiting: Ask | null = null;
  private nextId = 0;

  /**
   * Starts the worker ahead of the listing (quick open just opened), so its script loads and its
   * matcher warms up while the listing is read rather than after.
   */
  warm(): void {
    this.worker ??= this.start();
  }

  /**
   * The workspace's paths, afresh (a new listing replaces what changes made of the last). The
   * listing the worker holds as it was is not sent again: each opening of quick open reads it, and
   * sending 30,000 paths costs the page ~10 ms and the worker ~30 ms before it answers a key.
   */
  setFiles(files: string[]): void {
    if (files === this.holds) return;
    this.holds = files;
    this.changes = [];
    this.post({ type: "files", files });
    this.fed = true;
  }

  /** A file made or deleted since the listing. */
  apply(change: Pick<FileChange, "type" | "path">): void {
    if (!this.fed || change.type === "change") return;
    this.holds = null; // the next listing, even one equal to the last, says what .gitignore leaves out
    this.changes.push({ type: change.type, path: change.path });
    this.flushTimer ??= setTimeout(() => this.flush(), 50);
  }

  /**
   * The matches for `query`, or null once a later question replaced it before it ran. Asked again
   * while it waits or runs, the same question shares its answer: the palette asks as a key comes,
   * before it draws the key, and once more when drawn.
   */
  rank(query: string, recent: string[], limit = 50): Promise<FileMatch[] | null> {
    const latest = this.waiting ?? this.running;
    if (latest?.query === query && latest.recent === recent && latest.limit === limit) return latest.answer;
    let resolve: Ask["resolve"] = () => {};
    let reject: Ask["reject"] = () => {};
    const answer = new Promise<FileMatch[] | null>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.waiting?.resolve(null);
    this.waiting = { query, recent, limit, answer, resolve, reject };
    if (!this.running) this.next();
    return answer;
  }

  dispose(): void {
    clearTimeout(this.flushTimer);
    this.worker?.terminate();
    this.worker = null;
    this.running?.resolve(null);
    this.waiting?.resolve(null);
    this.running = this.waiting = null;
    this.fed = false;
    this.holds = null;
  }

  private next(): void {
    this.running = this.waiting;
    this.waiting = null;
    if (!this.running) return;
    this.flush();
    const { query, recent, limit } = this.running;
    this.post({ type: "rank", id: ++this.nextId, query, recent, limit });
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.changes.length === 0) return;
    this.post({ type: "changes", changes: this.changes });
    this.changes = [];
  }

  private post(request: QuickOpenRequest): void {
    this.worker ??= this.start();
    this.worker.postMessage(request);
  }

  private start(): Worker {
    const worker = new Worker(new URL("./quick-open-worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<QuickOpenReply>) => {
      if (event.data.id !== this.nextId) return;
      this.running?.resolve(event.data.matches);
      this.next();
    };
    // A worker that cannot start (its script failed to load) answers nothing: say so, once.
    worker.onerror = (event) => {
      const error = new Error(`Quick open's search could not start: ${event.message || "its script did not load"}`);
      this.running?.reject(error);
      this.waiting?.reject(error);
      this.running = this.waiting = null;
    };
    return worker;
  }
}
