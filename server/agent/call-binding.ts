import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import type { CallPlan } from "@/server/tools/define-tool";

// A model's tool-call ids are untrusted: a model may send the id of an earlier call again, the same
// id twice in one step, or an id thousands of characters long with path characters in it. So the
// runtime gives each call an id of its own when the model's is not a short plain word unused in
// the session (results, started calls, output logs and sub-agents are keyed by it), and an
// approval is bound to the call itself: the turn, the seq of its request in the log, and a hash of
// the tool, its input and what it will run. Nothing is authorised by an id alone.

const PLAIN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The model's id when it is plain and new in the session, else a fresh one; records it in `used`. */
export function ownCallId(modelId: string, used: Set<string>): string {
  let id = PLAIN_ID.test(modelId) && !used.has(modelId) ? modelId : `call_${randomUUID().replaceAll("-", "")}`;
  while (used.has(id)) id = `call_${randomUUID().replaceAll("-", "")}`;
  used.add(id);
  return id;
}

/** sha256 of the tool's name, its input and its plan, with object keys sorted (the log's JSON does not keep their order). */
export function callHash(toolName: string, input: unknown, plan: CallPlan | null): string {
  return createHash("sha256")
    .update(canonicalJson([toolName, input ?? null, plan]))
    .digest("hex");
}

export function canonicalJson(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

const planSchema = z.object({ commands: z.array(z.string()), digest: z.string().optional() });

/** A plan as stored with an approval (JSON), or null. */
export function callPlanOf(value: unknown): CallPlan | null {
  return planSchema.safeParse(value).data ?? null;
}
