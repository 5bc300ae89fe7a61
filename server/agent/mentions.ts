import { randomUUID } from "node:crypto";
import { runTool } from "@/server/tools/registry";
import { textOf } from "@/server/tools/result";
import { decide } from "@/server/agent/policy";
import type { TurnContext } from "@/server/agent/turn-context";
import type { MentionAttachment } from "@/lib/session-events";

// `@path` and `@url` in a message: the files and folders are read the way read_many_files reads
// them, and a URL is fetched by web_fetch (the project's network policy, its address rules, size
// limits and conversion), as the person who wrote the message; their mention is the approval, but
// the project's deny rules and switched-off tools still hold. The content goes with the message,
// for the model and as chips.

export const MAX_MENTIONS = 10;
const isUrl = (ref: string) => /^https?:\/\//i.test(ref);

export async function resolveMentions(turn: TurnContext, refs: readonly string[]): Promise<MentionAttachment[]> {
  const paths = refs.filter((r) => !isUrl(r));
  const urls = refs.filter(isUrl);
  const out: MentionAttachment[] = [];
  if (paths.length) {
    const read = await run(turn, "read_many_files", { paths });
    for (const path of paths)
      out.push({ ref: path, kind: "path", ok: read.ok, text: paths[0] === path ? read.text : "" });
  }
  for (const url of urls) {
    const fetched = await run(turn, "web_fetch", { url });
    out.push({ ref: url, kind: "url", ok: fetched.ok, text: fetched.text });
  }
  return out;
}

async function run(turn: TurnContext, toolName: string, input: unknown): Promise<{ ok: boolean; text: string }> {
  const tool = turn.tools[toolName];
  if (!tool) return { ok: false, text: `${toolName} is turned off for this project, so the mention was not attached.` };
  const decision = decide(turn.policy, tool, input);
  if (decision.action === "deny") return { ok: false, text: decision.reason };
  const result = await runTool(tool, input, turn.toolContext(`mention-${randomUUID()}`));
  return { ok: !result.error, text: textOf(result.llm) };
}
