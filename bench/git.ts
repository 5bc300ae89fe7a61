// Cloning a generated 10,000-file repository from a local smart-HTTP git server (git http-backend,
// server/test/git-http-server.ts): through Tandem (git in the project's sandbox, the token over the
// one-shot credential socket) against a plain `git clone` of the same repository in the same run.
// Run with `npm run bench:git`. Figures only: nothing here fails a build.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { cloneRepository } from "@/server/git/remote";
import { startGitHttpServer } from "@/server/test/git-http-server";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { createSandbox } from "@/server/sandbox/sandbox";

const FILES = Number(process.argv[2] ?? 10_000);
const ROUNDS = 3;
const TARGET_RATIO = 1.2;
const TOKEN = "bench-token";
const run = promisify(execFile);

function repositoryFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const words = "const value = compute(input, options); return result.map((x) => x * 2);".split(" ");
  for (let i = 0; i < FILES; i++) {
    let text = `// file ${i}\n`;
    const size = 200 + ((i * 37) % 4000);
    for (let w = 0; text.length < size; w++) text += `${words[(i + w) % words.length]}${w % 12 === 11 ? "\n" : " "}`;
    files[`src/pkg${i % 25}/mod${Math.floor(i / 25) % 20}/file${i}.ts`] = text;
  }
  return files;
}

async function time(task: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const server = await startGitHttpServer({ tokens: { [TOKEN]: "bench" } });
const mode = (await bwrapAvailable()) ? "bwrap" : "none";
// In bubblewrap the clone goes through the egress proxy, as in the product: the bench's git server
// is reached by a test name mapped to loopback, under an open policy.
const sandbox = createSandbox({
  host: { mode, masks: [], perProjectUid: false, limits: null },
  policies: { get: async () => ({ policy: "open", allowHosts: [] }) },
  testHosts: new Map([["git.test", "127.0.0.1"]]),
});
try {
  console.log(`generating a ${FILES}-file repository…`);
  const url = server.createRepository("big", repositoryFiles());
  const remote = new URL(url.replace("127.0.0.1", "git.test"));
  const authed = new URL(url);
  authed.username = "bench";
  authed.password = TOKEN;
  const plainEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
  } as unknown as NodeJS.ProcessEnv;
  const tandem: number[] = [];
  const plain: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = await mkdtemp(path.join(tmpdir(), "tandem-bench-git-"));
    const b = await mkdtemp(path.join(tmpdir(), "tandem-bench-git-"));
    // Alternate which goes first, so neither always meets a warm cache.
    const tasks = [
      async () =>
        plain.push(
          await time(() =>
            run("git", ["clone", "--quiet", authed.href, b], { env: plainEnv, maxBuffer: 64 * 1024 * 1024 }),
          ),
        ),
      async () =>
        tandem.push(
          await time(() =>
            cloneRepository(sandbox, {
              projectId: "bench",
              root: a,
              remote,
              secret: { username: "bench", password: TOKEN },
            }),
          ),
        ),
    ];
    for (const task of round % 2 ? tasks.reverse() : tasks) await task();
    await Promise.all([rm(a, { recursive: true, force: true }), rm(b, { recursive: true, force: true })]);
  }
  const ratio = median(tandem) / median(plain);
  console.log(`files: ${FILES}, rounds: ${ROUNDS}, sandbox: ${mode}`);
  console.log(`plain git clone:   ${median(plain).toFixed(0)} ms (median)`);
  console.log(`Tandem clone:      ${median(tandem).toFixed(0)} ms (median)`);
  console.log(
    `ratio: ${ratio.toFixed(2)}x (target ≤ ${TARGET_RATIO}x) ${ratio <= TARGET_RATIO ? "OK" : "OVER TARGET"}`,
  );
} finally {
  await server.close();
}
