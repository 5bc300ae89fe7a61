import type { EventLoopUtilization } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import type { ProviderModel } from "@/server/agent/provider-factories";
import {
  END,
  PART,
  type CallOptions,
  type FromThread,
  type ModelRoute,
  type StreamPart,
  type StreamResult,
  type ToThread,
} from "@/server/agent/model-thread/protocol";
import { fromWire, urlsToWire } from "@/server/agent/model-thread/wire";

// Models stream on a thread of their own (worker.ts), so that a second core reads them.
//
// With many sessions streaming, the server's one JavaScript thread was the limit (bench:stream):
// each token went through undici's body, the SSE parser, the chunk's zod validation and the
// provider's transform, a chain of web streams and promises that was about a third of the
// streaming CPU, and whose promises paid Node 20's AsyncLocalStorage hooks (better-auth and Next.js
// enter stores). On the model thread that work runs beside the server's, with no stores entered;
// what comes back is the provider's parts, in batches, one at a time: while this thread is busy
// with one, the next gathers there and the tokens of each call join (worker.ts).
//
// `wrap` gives the registry's model a stream that runs there; the AI SDK above it (prompt and tool
// conversion, the parsing of tool calls) is unchanged, and `doGenerate` (compaction, summaries)
// stays in this thread. The thread starts with the first call and stops after `idleMs` without one.

export type { ModelRoute };

export type ModelThread = {
  /** The same model, streaming on the model thread. */
  wrap(model: ProviderModel, route: ModelRoute): ProviderModel;
  /** Whether the thread is up (it starts with a call and stops when idle). */
  readonly running: boolean;
  /** The thread's event-loop utilization so far; null while it does not run. */
  eventLoopUtilization(): EventLoopUtilization | null;
  close(): Promise<void>;
};

type Call = {
  controller: ReadableStreamDefaultController<StreamPart>;
  stream: ReadableStream<StreamPart>;
  /** Until the provider answered: settles doStream. */
  pending: { resolve(result: StreamResult): void; reject(error: unknown): void } | null;
  signal: AbortSignal | undefined;
  onAbort(): void;
};

const IDLE_MS = 5 * 60_000;

/** `extraCa`: the admin's certificates (TANDEM_EXTRA_CA_CERTS), which the thread's connections trust too. */
export function createModelThread(options: { idleMs?: number; extraCa?: readonly string[] } = {}): ModelThread {
  const idleMs = options.idleMs ?? IDLE_MS;
  const calls = new Map<number, Call>();
  let worker: Worker | null = null;
  let idle: NodeJS.Timeout | null = null;
  let nextId = 1;

  function thread(): Worker {
    if (idle) clearTimeout(idle);
    idle = null;
    if (worker) return worker;
    const started = new Worker(new URL("./worker.mjs", import.meta.url), {
      name: "tandem-models",
      workerData: { extraCa: options.extraCa ?? [] },
    });
    started.unref(); // what keeps the server running is its listener, not a thread waiting for calls
    started.on("message", receive);
    started.on("error", (error) => lost(started, error));
    started.on("exit", (code) => lost(started, new Error(`The model thread stopped (exit code ${code}).`)));
    return (worker = started);
  }

  function send(message: ToThread) {
    if (message.type === "stream") thread().postMessage(message);
    else worker?.postMessage(message);
  }

  function lost(which: Worker, error: Error) {
    if (worker !== which) return;
    worker = null;
    for (const id of [...calls.keys()]) fail(id, error);
  }

  function settle(id: number): Call | undefined {
    const call = calls.get(id);
    if (!call) return undefined;
    calls.delete(id);
    call.signal?.removeEventListener("abort", call.onAbort);
    if (calls.size === 0 && worker && !idle) {
      const current = worker;
      idle = setTimeout(() => {
        idle = null;
        if (worker === current && calls.size === 0) {
          worker = null;
          void current.terminate();
        }
      }, idleMs);
      idle.unref();
    }
    return call;
  }

  function fail(id: number, error: unknown) {
    const call = settle(id);
    if (!call) return;
    if (call.pending) call.pending.reject(error);
    else call.controller.error(error);
  }

  function receive(message: FromThread) {
    if (message.type === "started") {
      const call = calls.get(message.id);
      if (!call?.pending) return;
      const { resolve } = call.pending;
      call.pending = null;
      resolve({ stream: call.stream, response: { headers: message.headers } });
    } else if (message.type === "failed") {
      fail(message.id, fromWire(message.error));
    } else {
      for (const [id, kind, value] of message.entries) {
        try {
          if (kind === PART) {
            const part = value.type === "error" ? { ...value, error: fromWire(value.error as never) } : value;
            calls.get(id)?.controller.enqueue(part);
          } else if (kind === END) {
            settle(id)?.controller.close();
          } else {
            fail(id, fromWire(value));
          }
        } catch (error) {
          fail(id, error); // that call ends; the others, and the acks every call's batches wait for, go on
        }
      }
      send({ type: "ack" });
    }
  }

  function doStream(route: ModelRoute, options: CallOptions): Promise<StreamResult> {
    const { abortSignal: signal, ...rest } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = nextId++;
    return new Promise<StreamResult>((resolve, reject) => {
      let controller!: ReadableStreamDefaultController<StreamPart>;
      const stream = new ReadableStream<StreamPart>({
        start: (c) => void (controller = c),
        cancel: () => {
          if (settle(id)) send({ type: "cancel", id });
        },
      });
      const onAbort = () => {
        if (!calls.has(id)) return;
        fail(id, signal!.reason);
        send({ type: "cancel", id });
      };
      calls.set(id, { controller, stream, pending: { resolve, reject }, signal, onAbort });
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        send({ type: "stream", id, route, options: urlsToWire(rest) });
      } catch (error) {
        fail(id, error); // something in the call cannot be sent to the thread
      }
    });
  }

  return {
    wrap(model, route) {
      return {
        specificationVersion: model.specificationVersion,
        provider: model.provider,
        modelId: model.modelId,
        get supportedUrls() {
          return model.supportedUrls;
        },
        doGenerate: (callOptions) => model.doGenerate(callOptions),
        doStream: (callOptions) => doStream(route, callOptions),
      };
    },
    get running() {
      return worker !== null;
    },
    eventLoopUtilization() {
      return worker ? worker.performance.eventLoopUtilization() : null;
    },
    async close() {
      if (idle) clearTimeout(idle);
      idle = null;
      const current = worker;
      worker = null;
      for (const id of [...calls.keys()]) fail(id, new Error("The server is stopping."));
      await current?.terminate();
    },
  };
}
