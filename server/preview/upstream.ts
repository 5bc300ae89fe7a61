import type net from "node:net";
import type { Readable, Writable } from "node:stream";
import { type Dispatcher, errors, Pool } from "undici";

// Requests to a project's port, over connections kept open between requests: a new one is a round
// trip to the workspace network's holder (workspace-network.ts), which cost a request ~25x its
// direct latency (bench:preview). One pool per key (the preview server keys them by grant: a
// person or a public link, and project and port), never shared: a connection that carried one
// person's requests never carries another's, so nothing a dev server ties to a connection (or a
// desync of its answers) crosses between them.
//
// undici's client rather than Node's http.request: the same keep-alive and streaming at about a
// fifth less server CPU per request (bench:preview). It is strict about what it parses (a status
// or header Node's server could not write again fails the request instead), and reads no timeout
// into an answer that is slow to come or never ends (a dev server compiling, server-sent events):
// a request ends when the person goes away.

/** How many connections to the port one key's requests hold at most. */
export const POOL_CONNECTIONS = 64;

/** Marks a failure to reach the port at all (nothing listens), as against a connection that broke later. */
export class Unreachable extends Error {}

/** Marks an answer no browser could be given: a malformed head, a status out of range, a switch of protocols nobody asked for. */
export class NotHttp extends Error {}

/** The failure of a request as the person is told of it. */
export function failureOf(error: Error): "unreachable" | "not-http" | "broken" {
  if (error instanceof Unreachable || error.cause instanceof Unreachable) return "unreachable";
  if (
    error instanceof NotHttp ||
    error instanceof errors.HTTPParserError ||
    error instanceof errors.HeadersOverflowError
  )
    return "not-http";
  return "broken";
}

/** An answer's head: the status, its reason phrase, and its headers (names in lower case) as name/value pairs. */
export type AnswerHead = {
  status: number;
  statusMessage: string;
  headers: string[];
  /** Its content type, whether its body is compressed, and whether its length is known. */
  type: string;
  encoded: boolean;
  sized: boolean;
};

export type UpstreamRequest = {
  method: string;
  path: string;
  /** Name/value pairs, the Host among them. */
  headers: string[];
  /** The request's body, or null for none. */
  body: Readable | null;
};

export type UpstreamAnswer = {
  /** The answer's head came: returns where its body goes, or null to drop it. */
  head(answer: AnswerHead): Writable | null;
  /** The request failed; `started` when the head had already come. */
  failed(error: Error, started: boolean): void;
};

export type Upstreams = ReturnType<typeof createUpstreams>;

export function createUpstreams() {
  const pools = new Map<string, Pool>();

  const forgetIfIdle = (key: string, pool: Pool) => {
    const stats = pool.stats;
    if (stats.connected > 0 || stats.size > 0 || pools.get(key) !== pool) return;
    pools.delete(key);
    void pool.close().catch(() => {});
  };

  const poolOf = (key: string, connect: () => Promise<net.Socket>) => {
    let pool = pools.get(key);
    if (pool) return pool;
    const made = new Pool("http://localhost", {
      connections: POOL_CONNECTIONS,
      keepAliveTimeout: 60_000,
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: (_options, callback) => {
        connect().then(
          (socket) => callback(null, socket.setNoDelay(true)),
          (error: Error) => callback(new Unreachable(error.message), null),
        );
      },
    });
    made.on("disconnect", () => forgetIfIdle(key, made));
    made.on("connectionError", () => forgetIfIdle(key, made));
    pools.set(key, made);
    pool = made;
    return pool;
  };

  /**
   * Sends a request over the key's pool (made with `connect` when there is none). Returns the
   * function that aborts it (the person went away, or their access ended).
   */
  function send(
    key: string,
    connect: () => Promise<net.Socket>,
    request: UpstreamRequest,
    answer: UpstreamAnswer,
  ): () => void {
    let controller: Dispatcher.DispatchController | null = null;
    let aborted = false;
    let started = false;
    let out: Writable | null = null;
    let retried = false;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(given) {
        controller = given;
        if (aborted) given.abort(new Error("the request was ended"));
      },
      onResponseStart(given, status, headers, statusMessage) {
        if (status < 100 || status === 101 || status > 999) {
          given.abort(new NotHttp(`status ${status}`));
          return;
        }
        // An interim answer (100 Continue, 103 Early Hints) is not passed on.
        if (status < 200) return;
        started = true;
        const pairs: string[] = [];
        for (const name in headers) {
          const value = headers[name]!;
          if (Array.isArray(value)) for (const one of value) pairs.push(name, one);
          else pairs.push(name, value);
        }
        out = answer.head({
          status,
          statusMessage: statusMessage ?? "",
          headers: pairs,
          type: String(headers["content-type"] ?? ""),
          encoded: headers["content-encoding"] !== undefined,
          sized: headers["content-length"] !== undefined,
        });
        if (!out) {
          // The person has had their answer (the head could not be passed on): nothing more to tell.
          aborted = true;
          return void given.abort(new Error("the answer was refused"));
        }
        // The browser reads slower than the dev server writes: the dev server waits.
        out.on("drain", () => given.resume());
      },
      onResponseData(given, chunk) {
        if (out && !out.write(chunk)) given.pause();
      },
      onResponseEnd() {
        out?.end();
      },
      onResponseError(_given, error) {
        if (aborted) return;
        // A kept connection the dev server had closed meanwhile: once more, for a request without a body.
        if (!started && !retried && request.body === null && error instanceof errors.SocketError) {
          retried = true;
          return dispatch();
        }
        answer.failed(error, started);
      },
    };
    const dispatch = () => {
      try {
        poolOf(key, connect).dispatch(
          {
            origin: "http://localhost",
            method: request.method,
            path: request.path,
            headers: request.headers,
            body: request.body,
          },
          handler,
        );
      } catch (error) {
        // What undici will not send (a header it takes for malformed): no request went out.
        answer.failed(error as Error, false);
      }
    };
    dispatch();
    return () => {
      aborted = true;
      controller?.abort(new Error("the request was ended"));
    };
  }

  /** Closes the key's kept connections (the grant's access ended). */
  function drop(key: string) {
    const pool = pools.get(key);
    pools.delete(key);
    void pool?.destroy().catch(() => {});
  }

  return { send, drop };
}
