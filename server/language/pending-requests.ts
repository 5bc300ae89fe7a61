import type { RequestMessage, ResponseMessage } from "vscode-jsonrpc/node";

// The requests a language server has not answered yet. Clients' ids would collide on the one
// connection, so every request goes to the server under an id of the hub's own, and its answer
// is sent back to the client under the id the client gave (or settles the hub's own request).

type Pending =
  | { kind: "client"; clientId: string; originalId: number | string; method: string }
  | { kind: "internal"; method: string; resolve(result: unknown): void; reject(error: Error): void };

export class PendingRequests {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** `serverName` names the server in a timeout's message. */
  constructor(private readonly serverName: string) {}

  /** A request of the hub's own, sent with `send`; fails after `timeoutMs` without an answer. */
  internal(
    send: (message: RequestMessage) => void,
    method: string,
    params: unknown,
    timeoutMs: number,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new Error(
            `The ${this.serverName} language server did not answer ${method} within ${Math.round(timeoutMs / 1000)} s.`,
          ),
        );
      }, timeoutMs);
      timer.unref();
      const done =
        <T>(f: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          f(value);
        };
      this.pending.set(id, { kind: "internal", method, resolve: done(resolve), reject: done(reject) });
      send({ jsonrpc: "2.0", id, method, params } as RequestMessage);
    });
  }

  /** The id a client's request goes to the server under. */
  forClient(clientId: string, originalId: number | string, method: string): number {
    const id = this.nextId++;
    this.pending.set(id, { kind: "client", clientId, originalId, method });
    return id;
  }

  /** The server's answer: settles the hub's own request, or is the client's to send back (with its own id). */
  settle(message: ResponseMessage): { clientId: string; response: ResponseMessage } | null {
    const id = typeof message.id === "number" ? message.id : Number(message.id);
    const pending = this.pending.get(id);
    if (!pending) return null;
    this.pending.delete(id);
    if (pending.kind === "client")
      return { clientId: pending.clientId, response: { ...message, id: pending.originalId } as ResponseMessage };
    if (message.error) pending.reject(new Error(message.error.message));
    else pending.resolve(message.result);
    return null;
  }

  /** The server is gone: every request fails, the hub's own rejected, a client's answered through `answer`. */
  failAll(message: string, answer: (clientId: string, originalId: number | string) => void): void {
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      if (pending.kind === "internal") pending.reject(new Error(message));
      else answer(pending.clientId, pending.originalId);
    }
  }

  /** A client left: answers to its requests go nowhere. */
  dropClient(clientId: string): void {
    for (const [id, pending] of this.pending)
      if (pending.kind === "client" && pending.clientId === clientId) this.pending.delete(id);
  }

  /** The server's ids of a client's request (for its cancellation). */
  idsOf(clientId: string, originalId: unknown): number[] {
    return [...this.pending]
      .filter(
        ([, pending]) =>
          pending.kind === "client" && pending.clientId === clientId && pending.originalId === originalId,
      )
      .map(([id]) => id);
  }
}
