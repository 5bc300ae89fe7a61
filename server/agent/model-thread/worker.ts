import { parentPort, workerData } from "node:worker_threads";
import { trustExtraCertificates } from "@/server/sandbox/trust-store";
import { providerFactories, type ProviderModel } from "@/server/agent/provider-factories";
import {
  END,
  FAIL,
  PART,
  type BatchEntry,
  type FromThread,
  type ModelRoute,
  type StreamPart,
  type ToThread,
} from "@/server/agent/model-thread/protocol";
import { toWire, urlsFromWire } from "@/server/agent/model-thread/wire";

// The model thread: calls the provider and reads its stream (HTTP, server-sent events, the
// validation of each chunk, the provider's own transform), then hands the parts to the server's
// thread. Parts of all calls that arrive in one turn of this thread's event loop go in one message.
//
// Two batches at a time: the next waits until the server's thread has taken one of them in (its
// `ack`). While it waits, what comes in gathers, and the pieces of text of each call join. So when
// the server's thread is busy (many sessions streaming), it takes fewer, larger pieces (one event,
// one frame to each viewer for several tokens) instead of falling further behind one token at a
// time; when it keeps up, each token goes alone, as soon as it came. With one batch at a time a
// token that came while one was out waited for the server's thread twice (the ack, then its own
// batch): at 50 sessions (bench:stream, six interleaved runs each) two at a time gave an added
// p50 of 25-50 ms against 30-58 ms, p99 69-161 ms against 162-293 ms, at the same CPU per token;
// three at a time did no better.

// A thread has its own global fetch: it trusts the admin's certificates as the server's thread does.
trustExtraCertificates((workerData as { extraCa?: string[] } | null)?.extraCa ?? []);

const port = parentPort!;
const models = new Map<string, ProviderModel>();
const running = new Map<number, AbortController>();
let batch: BatchEntry[] = [];
/** Where each call's last entry is in the batch. */
let lastOf = new Map<number, number>();
let scheduled = false;
/** Batches posted that the server's thread has not taken in yet, and how many may be. */
let unacked = 0;
const IN_FLIGHT = 2;

function post(message: FromThread) {
  port.postMessage(message);
}

/** A piece of text that follows another of the same text in the batch joins it. */
function merges(
  last: BatchEntry | undefined,
  entry: BatchEntry,
): last is [number, typeof PART, StreamPart & { delta: string }] {
  if (!last || last[1] !== PART || entry[1] !== PART) return false;
  const [a, b] = [last[2], entry[2]];
  return (
    (b.type === "text-delta" || b.type === "reasoning-delta") &&
    a.type === b.type &&
    a.id === b.id &&
    !a.providerMetadata &&
    !b.providerMetadata
  );
}

function queue(entry: BatchEntry) {
  const at = lastOf.get(entry[0]);
  const last = at === undefined ? undefined : batch[at];
  if (merges(last, entry)) {
    last[2] = { ...last[2], delta: last[2].delta + (entry[2] as { delta: string }).delta };
    return;
  }
  lastOf.set(entry[0], batch.push(entry) - 1);
  schedule();
}

function schedule() {
  if (scheduled || unacked >= IN_FLIGHT || batch.length === 0) return;
  scheduled = true;
  setImmediate(flush);
}

function postBatch(entries: BatchEntry[]) {
  post({ type: "batch", entries });
  unacked += 1;
}

function flush() {
  scheduled = false;
  if (unacked >= IN_FLIGHT) return;
  const entries = batch;
  batch = [];
  lastOf = new Map();
  try {
    postBatch(entries);
  } catch {
    // Something in one part cannot be cloned: the others still go, that call ends with the reason.
    for (const entry of entries) {
      try {
        postBatch([entry]);
      } catch (error) {
        running.get(entry[0])?.abort();
        postBatch([[entry[0], FAIL, toWire(error)]]);
      }
    }
  }
}

function modelFor(route: ModelRoute): ProviderModel {
  const key = `${JSON.stringify(route.config)}\n${route.provider}:${route.name}`;
  let model = models.get(key);
  if (!model) {
    const factory = providerFactories(route.config)[route.provider];
    if (!factory) throw new Error(`The model thread has no ${route.provider} provider configured.`);
    models.set(key, (model = factory(route.name)));
  }
  return model;
}

async function stream(message: Extract<ToThread, { type: "stream" }>) {
  const { id } = message;
  const controller = new AbortController();
  running.set(id, controller);
  let started = false;
  try {
    const result = await modelFor(message.route).doStream({
      ...urlsFromWire(message.options),
      abortSignal: controller.signal,
    });
    started = true;
    post({ type: "started", id, headers: result.response?.headers });
    const reader = result.stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      queue([id, PART, value.type === "error" ? ({ ...value, error: toWire(value.error) } as StreamPart) : value]);
    }
    queue([id, END, null]);
  } catch (error) {
    if (started) queue([id, FAIL, toWire(error)]);
    else post({ type: "failed", id, error: toWire(error) });
  } finally {
    running.delete(id);
  }
}

port.on("message", (message: ToThread) => {
  if (message.type === "stream") void stream(message);
  else if (message.type === "ack") {
    unacked -= 1;
    schedule();
  } else running.get(message.id)?.abort();
});
