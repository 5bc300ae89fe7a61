// Checkpoint cost on a generated 10,000-file workspace, side by side with a plain
// `git add -A && git commit` of the same tree in the same run. Run with `npm run bench:checkpoint`.
// Figures only: nothing here fails a build.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { CheckpointStore } from "@/server/workspace/checkpoints";

const FILES = Number(process.argv[2] ?? 10_000);
const CHANGED_PER_TURN = 10;
const TURNS = 11;
const TARGET_RATIO = 1.5;

const run = promisify(execFile);
const plainEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  LANG: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.com",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.com",
  // No background `gc --auto` after a commit: it would run during the next measurement (the store never gcs on its own either).
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "gc.auto",
  GIT_CONFIG_VALUE_0: "0",
} as unknown as NodeJS.ProcessEnv;

const plain = (cwd: string, script: string) =>
  run("sh", ["-c", script], { cwd, env: plainEnv, maxBuffer: 64 * 1024 * 1024 });

/** Text files of mixed sizes in nested folders, with some binaries and an ignored dependency folder. */
async function generate(root: string): Promise<string[]> {
  const files: string[] = [];
  const words = "const value = compute(input, options); return result.map((x) => x * 2);".split(" ");
  for (let i = 0; i < FILES; i++) {
    const dir = `src/pkg${i % 25}/mod${Math.floor(i / 25) % 20}${i % 7 === 0 ? "/deep/er" : ""}`;
    const binary = i % 50 === 0;
    const name = `${dir}/file${i}.${binary ? "bin" : "ts"}`;
    const size = binary ? 4096 + (i % 16) * 8192 : i % 100 === 1 ? 64 * 1024 : 200 + ((i * 37) % 8000);
    let content: Buffer;
    if (binary) content = randomBytes(size);
    else {
      let text = `// file ${i}\n`;
      for (let w = 0; text.length < size; w++) text += `${words[(i + w) % words.length]}${w % 12 === 11 ? "\n" : " "}`;
      content = Buffer.from(text);
    }
    await mkdir(path.join(root, dir), { recursive: true });
    await writeFile(path.join(root, name), content);
    files.push(name);
  }
  await writeFile(path.join(root, ".gitignore"), "node_modules/\n");
  await mkdir(path.join(root, "node_modules/dep"), { recursive: true });
  await writeFile(path.join(root, "node_modules/dep/index.js"), "module.exports = {};\n");
  return files;
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

async function timed<T>(task: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await task();
  return { ms: performance.now() - start, value };
}

async function changeFiles(root: string, files: readonly string[], turn: number): Promise<void> {
  for (let k = 0; k < CHANGED_PER_TURN; k++) {
    const name = files[(turn * 997 + k * 613) % files.length]!;
    await writeFile(path.join(root, name), `// turn ${turn} rewrote this file\n${randomBytes(512).toString("hex")}\n`);
  }
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

async function main() {
  const base = await mkdtemp(path.join(tmpdir(), "tandem-bench-checkpoint-"));
  const root = path.join(base, "workspace");
  const storeDir = path.join(base, "data", "checkpoints", "bench");
  try {
    await mkdir(root);
    const files = await generate(root);
    const workspaceBytes = await dirBytes(root);
    // The plain repository is the project's own .git in the same tree, which the store leaves out.
    const plainGitDir = path.join(root, ".git");
    const firsts = { ours: [] as number[], plain: [] as number[] };
    // A first snapshot happens once per store: take it twice, in both orders, into a throwaway store
    // and repository first, so neither side always runs on the warmer cache.
    const scratchDir = `${storeDir}-scratch`;
    const scratch = new CheckpointStore({ workspaceRoot: root, storeDir: scratchDir });
    await scratch.init();
    await plain(root, "git init -q");
    firsts.ours.push((await timed(() => scratch.snapshot({ label: "first" }))).ms);
    firsts.plain.push((await timed(() => plain(root, "git add -A && git commit -q -m first"))).ms);
    await rm(scratchDir, { recursive: true });
    await rm(plainGitDir, { recursive: true });

    await plain(root, "git init -q");
    const store = new CheckpointStore({ workspaceRoot: root, storeDir });
    await store.init();
    firsts.plain.push((await timed(() => plain(root, "git add -A && git commit -q -m first"))).ms);
    const oursFirst = await timed(() => store.snapshot({ label: "first" }));
    firsts.ours.push(oursFirst.ms);
    const sizes = { ours: [await dirBytes(storeDir)], plain: [await dirBytes(plainGitDir)] };

    const times = { ours: [] as number[], plain: [] as number[] };
    const ids: string[] = [oursFirst.value.id];
    for (let turn = 1; turn <= TURNS; turn++) {
      await changeFiles(root, files, turn);
      const plainCommit = () => timed(() => plain(root, `git add -A && git commit -q -m turn${turn}`));
      const ourSnapshot = () => timed(() => store.snapshot({ label: `turn ${turn}` }));
      // Alternate who goes first, for the same reason.
      const [snap, commit] =
        turn % 2
          ? [await ourSnapshot(), await plainCommit()]
          : await plainCommit().then(async (c) => [await ourSnapshot(), c] as const);
      times.ours.push(snap.ms);
      times.plain.push(commit.ms);
      ids.push(snap.value.id);
      sizes.ours.push(await dirBytes(storeDir));
      sizes.plain.push(await dirBytes(plainGitDir));
    }
    const unchanged = await timed(() => store.snapshot({ label: "nothing changed" }));

    // Restore the checkpoint before the last turn: the last turn's files are rewritten.
    const preview = await timed(() => store.previewRestore(ids[ids.length - 2]!));
    const restore = await timed(() => store.restore(ids[ids.length - 2]!));
    const plainRestore = await timed(() => plain(root, "git reset -q --hard HEAD"));

    const growth = (list: number[]) => median(list.slice(1).map((size, i) => size - list[i]!));
    const rows: [string, string, string, string][] = [
      [
        "first snapshot (mean of 2, both orders)",
        ms(mean(firsts.ours)),
        ms(mean(firsts.plain)),
        (mean(firsts.ours) / mean(firsts.plain)).toFixed(2),
      ],
      [
        `incremental (${CHANGED_PER_TURN} files, median of ${TURNS})`,
        ms(median(times.ours)),
        ms(median(times.plain)),
        (median(times.ours) / median(times.plain)).toFixed(2),
      ],
      ["snapshot, nothing changed", ms(unchanged.ms), "", ""],
      [
        `restore (${restore.value.changed.length} files; plain: reset --hard)`,
        ms(restore.ms),
        ms(plainRestore.ms),
        (restore.ms / plainRestore.ms).toFixed(2),
      ],
      ["preview restore", ms(preview.ms), "", ""],
      [
        "store after first snapshot",
        kb(sizes.ours[0]!),
        kb(sizes.plain[0]!),
        (sizes.ours[0]! / sizes.plain[0]!).toFixed(2),
      ],
      [
        "store growth per incremental snapshot (median)",
        kb(growth(sizes.ours)),
        kb(growth(sizes.plain)),
        (growth(sizes.ours) / growth(sizes.plain)).toFixed(2),
      ],
    ];
    console.log(
      `\nCheckpoints: ${FILES} files, ${kb(workspaceBytes)} in the workspace, ${process.platform}, ${(await plain(root, "git --version")).stdout.trim()}\n`,
    );
    const header: [string, string, string, string] = ["", "checkpoint", "plain git", "ratio"];
    const widths = header.map((_, c) => Math.max(...[header, ...rows].map((row) => row[c]!.length)));
    for (const row of [header, ...rows])
      console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("   "));
    console.log(
      `\nIncremental, per turn (ms): checkpoint ${times.ours.map((t) => t.toFixed(0)).join(" ")}; plain git ${times.plain.map((t) => t.toFixed(0)).join(" ")}`,
    );
    const ratio = median(times.ours) / median(times.plain);
    console.log(
      `\nTarget: incremental checkpoint within ${TARGET_RATIO}x of the plain git commit: ${ratio <= TARGET_RATIO ? "met" : "NOT met"} (${ratio.toFixed(2)}x); under 1 s: ${median(times.ours) < 1000 ? "met" : "NOT met"}.`,
    );
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

await main();
