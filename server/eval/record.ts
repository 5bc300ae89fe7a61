import { createTwoFilesPatch } from "diff";
import fs from "node:fs/promises";
import path from "node:path";
import type { SessionEvent } from "@/lib/session-events";
import { listWorkspaceFiles } from "@/server/workspace/file-list";
import type { Workspace } from "@/server/workspace/workspace";
import { CHECK_DIR } from "@/server/eval/grade";

// What one run leaves behind to read later: the session's whole log, the final diff of the
// workspace against the repository it started from, and the agent's final message. A score
// without its transcripts cannot be checked, nor a failure understood.

const MAX_DIFF_FILE_BYTES = 256 * 1024;

/** The unified diff of the workspace against `originalDir`, as git would show it (ignored files left out). */
export async function workspaceDiff(workspace: Workspace, originalDir: string): Promise<string> {
  const exclude = ["node_modules", ".git", CHECK_DIR, ".tandem"];
  const [after, before] = await Promise.all([
    listWorkspaceFiles(workspace.root, { exclude }),
    listWorkspaceFiles(originalDir, { exclude }),
  ]);
  const patches: string[] = [];
  for (const file of [...new Set([...before.files, ...after.files])].sort()) {
    const old = before.files.includes(file) ? await fs.readFile(path.join(originalDir, file)).catch(() => null) : null;
    const now = after.files.includes(file)
      ? await workspace.readBytes(file, MAX_DIFF_FILE_BYTES).catch(() => null)
      : null;
    if (old && now && old.equals(now)) continue;
    const binary = [old, now].some((b) => b?.includes(0));
    if (binary) {
      patches.push(`Binary file ${file} ${old ? (now ? "changed" : "deleted") : "added"}\n`);
      continue;
    }
    patches.push(
      createTwoFilesPatch(
        old ? `a/${file}` : "/dev/null",
        now ? `b/${file}` : "/dev/null",
        old?.toString("utf8") ?? "",
        now?.toString("utf8") ?? "",
        undefined,
        undefined,
        { context: 3 },
      ),
    );
  }
  return patches.join("");
}

/** The last thing the agent said: its final message to the person. */
export function finalMessage(events: SessionEvent[]): string {
  const last = events.findLast((e) => e.type === "assistant_message" && e.payload.text.trim());
  return last?.type === "assistant_message" ? last.payload.text : "";
}

export async function writeRunRecord(
  dir: string,
  record: { events: SessionEvent[]; diff: string; message: string; result: object },
): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  await Promise.all([
    fs.writeFile(path.join(dir, "session.jsonl"), `${record.events.map((e) => JSON.stringify(e)).join("\n")}\n`),
    fs.writeFile(path.join(dir, "final.diff"), record.diff),
    fs.writeFile(path.join(dir, "final-message.md"), `${record.message}\n`),
    fs.writeFile(path.join(dir, "result.json"), `${JSON.stringify(record.result, null, 2)}\n`),
  ]);
}
