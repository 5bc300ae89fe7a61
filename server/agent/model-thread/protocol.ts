import type { ModelsConfig, ProviderId } from "@/lib/model-providers";
import type { ProviderModel } from "@/server/agent/provider-factories";
import type { WireError } from "@/server/agent/model-thread/wire";

// The messages between the server's thread (model-thread.ts) and the model thread (worker.ts).

export type CallOptions = Parameters<ProviderModel["doStream"]>[0];
export type StreamResult = Awaited<ReturnType<ProviderModel["doStream"]>>;
export type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;

/** Which model a call goes to: the thread makes it from the same config as the registry, with the id the registry parsed. */
export type ModelRoute = { config: ModelsConfig; provider: ProviderId; name: string };

export type ToThread =
  | { type: "stream"; id: number; route: ModelRoute; options: Omit<CallOptions, "abortSignal"> }
  | { type: "cancel"; id: number }
  /** A batch was taken in: the thread may send the next. */
  | { type: "ack" };

/** In a batch: a part of the call's stream, its end, or the error that ended it. */
export const PART = 0;
export const END = 1;
export const FAIL = 2;
export type BatchEntry =
  | [id: number, kind: typeof PART, part: StreamPart]
  | [id: number, kind: typeof END, nothing: null]
  | [id: number, kind: typeof FAIL, error: WireError];

export type FromThread =
  | { type: "started"; id: number; headers: Record<string, string> | undefined }
  | { type: "failed"; id: number; error: WireError }
  | { type: "batch"; entries: BatchEntry[] };
