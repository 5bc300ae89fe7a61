// Parallel sessions, each on its own branch of a generated 10,000-file repository, through the real
// services (agent loop, tools, git, the sandbox when bubblewrap works; only the model is scripted):
//   1. creating and removing a session's worktree (tree.startSession, tree.discard) against
//      `git worktree add -b` / `git worktree remove` + `git branch -D` by hand, in the same run;
//   2. 1, 4 and 8 sessions at once, each running a turn that edits files and runs a test command in
//      its own tree: the added latency per turn against one session alone, and whether every
//      session finished correctly (its check passed, its edits in its tree only).
// Run with `npm run bench:parallel [files]`. Figures only: nothing here fails a build.
import { execFileSync } from "node:child_process";
import fs, { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startModelServer } from "@/e2e/fixtures/model-server/server";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { listEvents } from "@/server/db/repositories/session-events";
import { loadConfig } from "@/server/env/load-config";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { createServices } from "@/server/services";

const FILES = Number(process.argv[2] ?? 10_000);
const ROUNDS = 5;
const COUNTS = [1, 4, 8];
const TARGET_WORKTREE_RATIO = 1.5;

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "safe.directory=*", ...args], { cwd, encoding: "utf8", env: gitEnv });

async function time(task: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await task();
  return performance.now() - start;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function generate(root: string) {
  const words = "const value = compute(input, options); return result.map((x) => x * 2);".split(" ");
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, `src/pkg${i % 25}/mod${Math.floor(i / 25) % 20}`);
    if (i < 500) await mkdir(dir, { recursive: true });
    let text = `// file ${i}\nexport const id${i} = ${i};\n`;
    const size = 200 + ((i * 37) % 2000);
    for (let w = 0; text.length < size; w++) text += `${words[(i + w) % words.length]}${w % 12 === 11 ? "\n" : " "}`;
    await writeFile(path.join(dir, `file${i}.ts`), text);
  }
  // The "test command" each turn runs: it checks that the turn's edits are there.
  await writeFile(
    path.join(root, "check.sh"),
    'set -e\nfor f in "$@"; do grep -q "edited by $SESSION_NAME" "$f"; done\necho "check-ok $SESSION_NAME"\n',
  );
  git(root, "init", "-q", "-b", "main");
  git(root, "add", ".");
  git(root, "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-qm", "generated");
}

/** One session's scripted turn: edit three files in its tree, then run the check over them. */
function turn(name: string, index: number) {
  const files = [0, 1, 2].map((k) => `src/pkg${(index * 3 + k) % 25}/mod0/file${(index * 3 + k) % 25}.ts`);
  const edits = files.map((f) => `printf '// edited by ${name}\\n' >> ${f}`).join(" && ");
  const command = `${edits} && SESSION_NAME=${name} sh check.sh ${files.join(" ")}`;
  return {
    files,
    replies: [
      { match: `${name}:`, toolCalls: [{ id: `${name}_shell`, name: "shell", arguments: { command } }] },
      { match: `check-ok ${name}`, text: `${name} finished.` },
    ],
  };
}

// The server as `npm start` builds it (its embedded Postgres, its sandbox), with the scripted model.
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-bench-parallel-"));
const model = await startModelServer();
const sandboxMode = (await bwrapAvailable()) ? "bwrap" : "none";
const { services, dispose } = await createServices(
  loadConfig({
    TANDEM_DATA_DIR: dataDir,
    TANDEM_SANDBOX: sandboxMode,
    TANDEM_MODEL: "openai-compatible:scripted",
    TANDEM_OPENAI_COMPATIBLE_BASE_URL: model.url,
    TANDEM_OPENAI_COMPATIBLE_API_KEY: "bench",
  }),
  () => {},
);
const user = await services.db.user.create({
  data: { id: "bench", name: "Bench", email: "bench@example.com", role: "admin" },
  select: { id: true, email: true, name: true, role: true },
});
const caller = createCallerFactory(appRouter)({ user: { ...user, role: "admin" }, services });
const h = {
  caller,
  model,
  status: async (sessionId: string) => (await caller.session.get({ sessionId })).status,
  events: (sessionId: string) => listEvents(services.db, sessionId),
  idle: (sessionId: string) => services.agent.idle(sessionId),
};
try {
  const projectId = (await caller.project.create({ name: "Parallel" })).id;
  await h.caller.agent.updateSettings({ projectId, approvalMode: "yolo", allowRules: [{ tool: "shell" }] });
  const main = services.files.pathOf(projectId);
  await services.files.open(projectId);
  console.log(`generating a ${FILES}-file repository…`);
  await generate(main);

  // 1. Worktree creation and removal, alternating which goes first.
  const byHand = { add: [] as number[], remove: [] as number[] };
  const tandem = { add: [] as number[], remove: [] as number[] };
  const handDir = path.join(path.dirname(path.dirname(main)), "bench-by-hand");
  await mkdir(handDir, { recursive: true });
  for (let round = 0; round < ROUNDS; round++) {
    const tasks = [
      async () => {
        const dir = path.join(handDir, `r${round}`);
        byHand.add.push(await time(() => git(main, "worktree", "add", "--quiet", "-b", `hand/r${round}`, dir, "HEAD")));
        byHand.remove.push(
          await time(() => {
            git(main, "worktree", "remove", "--force", dir);
            git(main, "branch", "-D", "--", `hand/r${round}`);
          }),
        );
      },
      async () => {
        let id = "";
        tandem.add.push(
          await time(async () => {
            id = (await h.caller.tree.startSession({ projectId, title: `Round ${round}` })).id;
          }),
        );
        tandem.remove.push(await time(() => h.caller.tree.discard({ sessionId: id })));
      },
    ];
    for (const task of round % 2 ? tasks.reverse() : tasks) await task();
  }

  // 2. Turns in parallel, each session on its own branch.
  const perCount = new Map<number, { mean: number; max: number; wall: number; ok: number }>();
  for (const count of COUNTS) {
    const sessions = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const name = `s${count}x${i}`;
        const session = await h.caller.tree.startSession({ projectId, title: name });
        return { name, id: session.id, ...turn(name, i) };
      }),
    );
    h.model.load({ replies: sessions.flatMap((s) => s.replies) });
    const latencies: number[] = [];
    const wall = await time(() =>
      Promise.all(
        sessions.map(async (s) =>
          latencies.push(
            await time(async () => {
              await h.caller.session.send({ sessionId: s.id, text: `${s.name}: edit and check` });
              await h.idle(s.id);
            }),
          ),
        ),
      ),
    );
    let ok = 0;
    for (const s of sessions) {
      const results = (await h.events(s.id))
        .filter((e) => e.type === "tool_result")
        .map((e) => JSON.stringify(e.payload));
      const tree = services.files.treePath({ projectId, treeId: s.id });
      const edited = await Promise.all(s.files.map((f) => readFile(path.join(tree, f), "utf8")));
      // Its own edit, once, and nobody else's.
      const clean = edited.every(
        (text) => text.split("edited by").length === 2 && text.includes(`edited by ${s.name}\n`),
      );
      const status = await h.status(s.id);
      if (status === "idle" && results.some((r) => r.includes(`check-ok ${s.name}`)) && clean) ok++;
    }
    perCount.set(count, { mean: mean(latencies), max: Math.max(...latencies), wall, ok });
    for (const s of sessions) await h.caller.tree.discard({ sessionId: s.id });
  }
  if (git(main, "status", "--porcelain") !== "") console.log("the main tree changed: NOT OK");

  const addRatio = median(tandem.add) / median(byHand.add);
  const removeRatio = median(tandem.remove) / median(byHand.remove);
  console.log(`files: ${FILES}, rounds: ${ROUNDS}, sandbox: ${sandboxMode}`);
  console.log(`git worktree add by hand:        ${median(byHand.add).toFixed(0)} ms (median)`);
  console.log(`tree.startSession:               ${median(tandem.add).toFixed(0)} ms (median)`);
  console.log(
    `worktree creation ratio: ${addRatio.toFixed(2)}x (target ≤ ${TARGET_WORKTREE_RATIO}x) ${addRatio <= TARGET_WORKTREE_RATIO ? "OK" : "OVER TARGET"}`,
  );
  console.log(`git worktree remove by hand:     ${median(byHand.remove).toFixed(0)} ms (median)`);
  console.log(`tree.discard:                    ${median(tandem.remove).toFixed(0)} ms (median)`);
  console.log(`worktree removal ratio: ${removeRatio.toFixed(2)}x`);
  const alone = perCount.get(1)!.mean;
  for (const [count, r] of perCount) {
    console.log(
      `${count} session${count === 1 ? " " : "s"} at once: turn ${r.mean.toFixed(0)} ms mean, ${r.max.toFixed(0)} ms max, all done in ${r.wall.toFixed(0)} ms; ` +
        `added per turn ${(r.mean - alone).toFixed(0)} ms (${(r.mean / alone).toFixed(2)}x one alone); ` +
        `${r.ok}/${count} finished correctly ${r.ok === count ? "OK" : "NOT OK"}`,
    );
  }
} finally {
  await dispose();
  await model.close();
  await fs.rm(dataDir, { recursive: true, force: true });
}
