import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

// What ran, so two reports can be told apart and a score traced to its code: Tandem's commit
// (and whether the tree had changes), and hashes of the sources of what the model reads on
// every request, the system prompt and the tool definitions. Tests are left out: they change
// what nobody sends.

const run = promisify(execFile);

async function hashSources(root: string, dir: string): Promise<string> {
  const hash = createHash("sha256");
  const entries = await fs.readdir(path.join(root, dir), { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".test.ts"))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(await fs.readFile(path.join(root, file)))
      .update("\0");
  return hash.digest("hex");
}

export async function fingerprint(root: string) {
  const git = (...args: string[]) =>
    run("git", ["-C", root, ...args], { encoding: "utf8" }).then(
      (r) => r.stdout.trim(),
      () => null,
    );
  const [commit, status, promptHash, toolsHash] = await Promise.all([
    git("rev-parse", "HEAD"),
    git("status", "--porcelain", "--untracked-files=no"),
    hashSources(root, "server/agent/prompts"),
    hashSources(root, "server/tools"),
  ]);
  return { tandemCommit: commit ?? "unknown", dirty: Boolean(status), promptHash, toolsHash };
}
