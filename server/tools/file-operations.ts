import { z } from "zod";
import { commitFiles, type FileWrite } from "@/server/workspace/transaction";
import { DEFAULT_FORMAT, encode } from "@/server/workspace/text-codec";
import type { DiffFile, ToolErrorCode } from "@/lib/tool-display";
import { defineTool, type ToolContext, type ToolResult } from "./define-tool";
import { diffFile } from "./diff-display";
import { applyEdit } from "./edit-match";
import { assertFresh, editableText, loadFileIfExists, recordWrite, type LoadedFile } from "./file-state";
import { ToolFailure, resultFromError } from "./result";
import { numberLines } from "./text-window";

// Several reads, edits, writes, moves and deletes in one call (the seed's FileOperations). They run
// in dependency order: an operation waits for those it names in `after` and for earlier ones on
// the same paths; operations with nothing between them form a wave and run together. Every change
// is planned in memory first, so one failure anywhere leaves every file as it was; then all changes
// are one transaction (workspace/transaction.ts: journaled, all old or all new even across a crash).
// The result is the seed's EnhancedToolResult: a summary and each operation's outcome.

const MAX_OPERATIONS = 100;
const READ_LINES = 400;

const common = {
  id: z.string().min(1).max(40).optional().describe("Name for `after` (default: the 0-based index)."),
  after: z.array(z.string()).max(MAX_OPERATIONS).optional().describe("Ids this operation waits for."),
  path: z.string().min(1),
};

const operation = z.discriminatedUnion("op", [
  z.object({ op: z.literal("read"), ...common }),
  z.object({
    op: z.literal("edit"),
    ...common,
    old_string: z.string(),
    new_string: z.string(),
    replace_all: z.boolean().optional(),
  }),
  z.object({ op: z.literal("write"), ...common, content: z.string() }),
  z.object({ op: z.literal("move"), ...common, to: z.string().min(1) }),
  z.object({ op: z.literal("delete"), ...common }),
]);

const input = z.object({ operations: z.array(operation).min(1).max(MAX_OPERATIONS) });
type Input = z.infer<typeof input>;
type Operation = Input["operations"][number];

const DESCRIPTION = `Several file operations in one call, applied all or nothing: read, edit (exact old_string as edit), write, move (path to 'to'), delete.
Order: by 'after' ids and, for the same path, as listed; the rest run in parallel. Reads see earlier changes in the call. If any fails, nothing changes. Returns a summary and each operation's result.`;

type Outcome = {
  index: number;
  id: string;
  op: Operation["op"];
  path: string;
  wave: number;
  status: "ok" | "failed" | "not_run";
  detail?: string;
  error?: { code: ToolErrorCode; message: string };
};

/** A file as the call has it so far: loaded once, then changed in memory. */
type Planned = {
  label: string;
  file: LoadedFile | null;
  /** Current content: text, or the raw bytes of a binary file being moved; null once deleted or never there. */
  text: string | null;
  bytes: Buffer | null;
  format: Parameters<typeof encode>[1];
  touched: boolean;
};

export const fileOperationsTool = defineTool({
  name: "file_operations",
  kind: "edit",
  description: DESCRIPTION,
  input,
  onDemand: "always",
  describe: (i) => `${i.operations.length} file operations`,
  async execute(i, ctx) {
    const ids = i.operations.map((o, index) => o.id ?? String(index));
    const waves = orderWaves(i.operations, ids);
    const outcomes: Outcome[] = i.operations.map((o, index) => ({
      index,
      id: ids[index]!,
      op: o.op,
      path: o.path,
      wave: waves.waveOf[index] ?? -1,
      status: "not_run",
    }));
    const files = new Map<string, Planned>();
    // Each file is loaded once, by whichever operation reaches it first; later ones share the promise.
    const loading = new Map<string, Promise<Planned>>();
    const planned = async (raw: string): Promise<Planned> => {
      const resolved = await ctx.workspace.resolve(raw);
      let entry = loading.get(resolved.path);
      if (!entry) {
        entry = loadFileIfExists(ctx, raw).then((file) => {
          const plan = fromLoaded(resolved.requested, file);
          files.set(resolved.path, plan);
          return plan;
        });
        loading.set(resolved.path, entry);
      }
      return entry;
    };
    for (const wave of waves.waves) {
      await Promise.all(
        wave.map(async (index) => {
          const outcome = outcomes[index]!;
          try {
            outcome.detail = await apply(i.operations[index]!, planned, ctx);
            outcome.status = "ok";
          } catch (error) {
            const result = resultFromError(error, ctx.signal);
            outcome.status = "failed";
            outcome.error = result.error!;
          }
        }),
      );
    }
    for (const index of waves.cyclic) {
      outcomes[index]!.status = "failed";
      outcomes[index]!.error = { code: "INVALID_INPUT", message: "its `after` ids form a cycle or name no operation" };
    }
    const failed = outcomes.filter((o) => o.status === "failed");
    if (failed.length > 0) return report(outcomes, false, []);
    const changed = [...files.entries()].filter(([, plan]) => plan.touched && (plan.file || plan.bytes !== null));
    const writes: FileWrite[] = changed.map(([, plan]) => ({
      path: plan.label,
      bytes: plan.bytes,
      expectedVersion: plan.file ? plan.file.version : null,
    }));
    try {
      const { versions } = await commitFiles(ctx.workspace, writes);
      changed.forEach(([key, plan], n) => {
        if (plan.bytes !== null) recordWrite(ctx, key, versions[n]!);
      });
    } catch (error) {
      const result = resultFromError(error, ctx.signal);
      return report(
        outcomes.map((o) => (o.op === "read" ? o : { ...o, status: "failed", error: result.error! })),
        false,
        [],
      );
    }
    const diffs = changed.map(([, plan]) => diffOf(plan));
    return report(outcomes, true, diffs);
  },
});

function fromLoaded(label: string, file: LoadedFile | null): Planned {
  if (!file) return { label, file: null, text: null, bytes: null, format: DEFAULT_FORMAT, touched: false };
  const text = file.decoded.kind === "text" && !file.decoded.lossy ? editableText(file, "file_operations").text : null;
  const format = file.decoded.kind === "text" ? file.decoded : DEFAULT_FORMAT;
  return {
    label,
    file,
    text,
    bytes: file.bytes,
    format: { encoding: format.encoding, bom: format.bom, eol: format.eol },
    touched: false,
  };
}

/** Applies one operation to the planned files; returns its one-line detail (a read: the text). */
async function apply(op: Operation, planned: (raw: string) => Promise<Planned>, ctx: ToolContext): Promise<string> {
  // Both files of a move first: after the awaits, an operation runs to its end without yielding.
  const target = op.op === "move" ? await planned(op.to) : null;
  const plan = await planned(op.path);
  const missing = () =>
    new ToolFailure(
      "NOT_FOUND",
      `'${op.path}' does not exist${plan.file ? " any more at this point of the call" : ""}.`,
    );
  switch (op.op) {
    case "read": {
      if (plan.bytes === null) throw missing();
      if (plan.text === null) return `binary file, ${plan.bytes.length} bytes`;
      if (plan.file && !plan.touched) ctx.reads.recordRead(plan.file.resolved.path, plan.file.version, "operations");
      const window = numberLines(plan.text, 1, READ_LINES);
      return window.end < window.total
        ? `${window.text}\n[first ${window.end} of ${window.total} lines; read_file reads on]`
        : window.text;
    }
    case "edit": {
      if (plan.bytes === null && op.old_string !== "") throw missing();
      changeable(plan, ctx);
      if (plan.bytes === null) return setText(plan, op.new_string.replace(/\r\n/g, "\n"), "created");
      if (plan.text === null) throw new ToolFailure("BINARY_FILE", `'${op.path}' is binary; edit changes text only.`);
      const outcome = applyEdit(plan.text, op, plan.label);
      if (!outcome.ok) throw new ToolFailure(outcome.code, outcome.message);
      return setText(plan, outcome.text, "edited");
    }
    case "write":
      if (plan.bytes !== null) changeable(plan, ctx);
      return setText(plan, op.content.replace(/\r\n/g, "\n"), plan.bytes === null ? "created" : "replaced");
    case "delete":
      if (plan.bytes === null) throw missing();
      changeable(plan, ctx);
      plan.text = null;
      plan.bytes = null;
      plan.touched = true;
      return "deleted";
    case "move": {
      if (plan.bytes === null) throw missing();
      changeable(plan, ctx);
      if (!target || target === plan)
        throw new ToolFailure("INVALID_INPUT", `'${op.path}' and '${op.to}' are the same file.`);
      if (target.bytes !== null)
        throw new ToolFailure("EXISTS", `'${op.to}' already exists. Delete it first in the same call to replace it.`);
      Object.assign(target, { text: plan.text, bytes: plan.bytes, format: plan.format, touched: true });
      Object.assign(plan, { text: null, bytes: null, touched: true });
      return `moved to ${target.label}`;
    }
  }
}

/** A file that exists on disk may be changed only by a session that has seen its current version. */
function changeable(plan: Planned, ctx: ToolContext) {
  if (plan.file && !plan.touched) assertFresh(ctx, plan.file, "file_operations");
}

function setText(plan: Planned, text: string, detail: string): string {
  plan.text = text;
  plan.bytes = encode(text, plan.format);
  plan.touched = true;
  return detail;
}

function diffOf(plan: Planned): DiffFile {
  const before = plan.file && plan.file.decoded.kind === "text" ? editableText(plan.file, "file_operations").text : "";
  return diffFile(plan.label, before, plan.text ?? "", plan.file === null);
}

/**
 * Waves of operations: each waits for the ids in its `after` and for every earlier operation on a
 * path it touches. `cyclic`: operations that can never run (a cycle, or an id no operation has).
 */
export function orderWaves(
  operations: readonly Operation[],
  ids: readonly string[],
): { waves: number[][]; waveOf: number[]; cyclic: number[] } {
  const byId = new Map(ids.map((id, index) => [id, index]));
  const touches = (o: Operation) => (o.op === "move" ? [o.path, o.to] : [o.path]).map(normalize);
  const waitsFor = operations.map((o, index) => {
    const deps = new Set<number>();
    for (const id of o.after ?? []) deps.add(byId.get(id) ?? -1);
    const mine = touches(o);
    for (let earlier = 0; earlier < index; earlier++)
      if (touches(operations[earlier]!).some((p) => mine.includes(p))) deps.add(earlier);
    return deps;
  });
  const waveOf: number[] = operations.map(() => -1);
  const waves: number[][] = [];
  let placed = 0;
  for (let wave = 0; placed < operations.length; wave++) {
    const ready = operations
      .map((_, index) => index)
      .filter(
        (index) =>
          waveOf[index] === -1 && [...waitsFor[index]!].every((d) => d >= 0 && waveOf[d] !== -1 && waveOf[d]! < wave),
      );
    if (ready.length === 0) break;
    for (const index of ready) waveOf[index] = wave;
    waves.push(ready);
    placed += ready.length;
  }
  const cyclic = waveOf.flatMap((w, index) => (w === -1 ? [index] : []));
  return { waves, waveOf, cyclic };
}

const normalize = (p: string) => p.replace(/^\.\//, "").replace(/\/+$/, "");

function report(outcomes: Outcome[], applied: boolean, diffs: DiffFile[]): ToolResult {
  const failed = outcomes.filter((o) => o.status === "failed");
  const summary = {
    applied,
    operations: outcomes.length,
    succeeded: outcomes.filter((o) => o.status === "ok").length,
    failed: failed.length,
    waves: Math.max(0, ...outcomes.map((o) => o.wave + 1)),
    filesChanged: diffs.length,
    note: applied
      ? undefined
      : "Nothing was changed: every change in this call is undone when one operation fails. Fix the failed operations and send the whole call again.",
  };
  const value = { summary, operations: outcomes };
  const llm = JSON.stringify(value, null, 2);
  if (!applied) {
    const first = failed[0]?.error ?? { code: "INTERNAL" as const, message: "the call failed" };
    const message = `${failed.length} of ${outcomes.length} operations failed, so nothing was changed: ${failed
      .map((o) => `operation ${o.id} (${o.op} ${o.path}): [${o.error!.code}] ${o.error!.message}`)
      .join("; ")}`;
    return {
      llm,
      json: true,
      display: { kind: "error", code: first.code, message },
      error: { code: first.code, message },
    };
  }
  return {
    llm,
    json: true,
    display: diffs.length ? { kind: "diff", files: diffs } : { kind: "json", value },
    meta: { paths: diffs.map((d) => d.path) },
  };
}
