// The large workspace of bench:monorepo: code nobody here wrote, and files in it to open by name.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { rgPath } from "@vscode/ripgrep";
import { RG_BASE_ARGS } from "@/server/workspace/ripgrep";

const ROOT = path.resolve(import.meta.dirname, "..");

export type Target = { path: string; query: string; firstLine: string };

/** Hard-links whole packages of node_modules into `root/packages` until it holds `files` files. */
export function buildWorkspace(root: string, files: number): void {
  const source = path.join(ROOT, "node_modules");
  const packages = readdirSync(source)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) =>
      name.startsWith("@") ? readdirSync(path.join(source, name)).map((n) => `${name}/${n}`) : [name],
    )
    .sort();
  let count = 0;
  for (const name of packages) {
    if (count >= files) break;
    const from = path.join(source, name);
    const entries = readdirSync(from, { recursive: true, withFileTypes: true });
    const own = (e: (typeof entries)[0]) => !path.relative(from, e.parentPath).split(path.sep).includes("node_modules");
    count += entries.filter((e) => e.isFile() && own(e)).length;
    mkdirSync(path.dirname(path.join(root, "packages", name)), { recursive: true });
    spawnSync("cp", ["-al", from, path.join(root, "packages", name)]);
  }
  // As in a real monorepo, installed dependencies are not part of it.
  writeFileSync(path.join(root, ".gitignore"), "node_modules/\n");
  const git = (...args: string[]) => {
    const result = spawnSync("git", args, {
      cwd: root,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "Bench",
        GIT_AUTHOR_EMAIL: "bench@example.com",
        GIT_COMMITTER_NAME: "Bench",
        GIT_COMMITTER_EMAIL: "bench@example.com",
      },
    });
    if (result.status !== 0) throw new Error(`git ${args[0]}: ${result.stderr}`);
    return result.stdout.toString();
  };
  git("init", "-q");
  git("add", "-A");
  // Without gc.auto=0 the commit leaves a detached `git gc --auto` repacking its 29,000 loose
  // objects for a minute: a core, and the disk's writeback, taken from the first rounds measured.
  // Packed here instead (one pack, as a clone has; no deltas, which take a minute to find), and
  // written out before anything is timed.
  git("-c", "gc.auto=0", "commit", "-q", "-m", "A large workspace");
  git("repack", "-a", "-d", "-q", "--window=0");
  spawnSync("sync");
}

export function listFiles(root: string): string[] {
  const run = spawnSync(rgPath, [...RG_BASE_ARGS, "--files"], { cwd: root, maxBuffer: 1 << 28 });
  return run.stdout.toString().split("\n").filter(Boolean).sort();
}

/** Files a person would open by name: unique, a plain first line to recognise in the editor. */
export function pickTargets(root: string, files: string[]): Target[] {
  const stems = new Map<string, number>();
  const stemOf = (file: string) => path.basename(file).replace(/\.[^.]*$/, "");
  for (const file of files) stems.set(stemOf(file), (stems.get(stemOf(file)) ?? 0) + 1);
  const targets: Target[] = [];
  for (let i = Math.floor(files.length * 0.6); i < files.length && targets.length < 2; i++) {
    const file = files[i]!;
    const stem = stemOf(file);
    if (stems.get(stem) !== 1 || !/^[a-z][a-zA-Z]{9,15}$/.test(stem) || !/\.(js|ts)$/.test(file)) continue;
    const text = readFileSync(path.join(root, file), "utf8");
    if (text.length > 20_000) continue;
    const firstLine = text.split("\n")[0]!.trim().slice(0, 24);
    if (!/^[\w .;(){}'"=/*-]{6,}$/.test(firstLine)) continue;
    targets.push({ path: file, query: stem, firstLine });
  }
  if (targets.length < 2) throw new Error("no two files to open by name in the workspace");
  return targets;
}
