import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { swapWithLink } from "@/server/test/swap-with-link";
import { canSwapLinks } from "@/server/test/temp-dirs";

// Issue 38, defect 2, through the Changes view and checkpoint restore: an agent turn changed
// d/f.txt and created d/new.txt; while a process of the project swaps the folder `d` with a link
// to a root-only folder outside the workspace (renameat2 RENAME_EXCHANGE, in a loop), rejecting
// and reviewing must never write, delete or read anything there, nor restoring and undoing write
// or delete anything there. Bounded: ROUNDS rounds each, or SECONDS, whichever ends first.

const SECRET = "host secret 91c4";
const ROUNDS = 40;
const SECONDS = 15;

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let root: string;
let outside: string;
let sessionId: string;
let checkpointId: string;
let swapper: { stop(): Promise<number> } | undefined;

const settle = <T>(call: Promise<T>) =>
  call.then(
    (value) => value,
    () => null,
  );

async function tree(dir: string): Promise<[string, string][]> {
  const names = (await readdir(dir, { recursive: true })).map(String).sort();
  return Promise.all(
    names.map(
      async (name): Promise<[string, string]> => [
        name,
        await readFile(path.join(dir, name), "utf8").catch(() => "(not a file)"),
      ],
    ),
  );
}

beforeAll(async () => {
  h = await createAgentHarness();
  root = h.env.services.files.pathOf(h.project.id);
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
  const workspace = await h.env.services.files.open(h.project.id);
  await workspace.create("d/f.txt", "line 1\nline 2\nline 3\n", { createParents: true });
  const session = await h.newSession({
    replies: [
      {
        toolCalls: [
          { id: "w1", name: "write", arguments: { path: "d/f.txt", content: "line 1\nchanged\nline 3\n" } },
          { id: "w2", name: "write", arguments: { path: "d/new.txt", content: "agent's\n" } },
        ],
      },
      { match: "wrote d/new.txt", text: "Done." },
    ],
  });
  sessionId = session.id;
  checkpointId = only(await h.send(sessionId, "Change d"), "checkpoint")[0]!.payload.checkpointId;
}, 60_000);

beforeEach(async () => {
  outside = await mkdtemp(path.join(os.tmpdir(), "tandem-root-only-"));
  await chmod(outside, 0o700);
  await mkdir(path.join(outside, "sub"));
  for (const name of ["f.txt", "new.txt", "sub/g.txt"]) await writeFile(path.join(outside, name), SECRET);
  swapper = await swapWithLink(root, "d", outside);
});

afterEach(async () => {
  await swapper?.stop();
  swapper = undefined;
  await rm(outside, { recursive: true, force: true });
});

afterAll(() => h?.dispose());

describe.runIf(canSwapLinks)(
  "a folder swapped for a link to a root-only folder, in a loop, during review and restore",
  () => {
    it("rejecting files and hunks, and reading a file's changes, never touch or show what is outside", async () => {
      const before = await tree(outside);
      const shown: string[] = [];
      for (let i = 0, until = Date.now() + SECONDS * 1000; i < ROUNDS && Date.now() < until; i++) {
        shown.push(JSON.stringify(await settle(h.caller.review.file({ sessionId, path: "d/f.txt" }))));
        shown.push(JSON.stringify(await settle(h.caller.review.changes({ sessionId }))));
        await settle(h.caller.review.rejectHunk({ sessionId, path: "d/f.txt", hunkIndex: 0 }));
        await settle(h.caller.review.rejectFile({ sessionId, path: "d/f.txt" }));
        await settle(h.caller.review.rejectFile({ sessionId, path: "d/new.txt" }));
      }
      await swapper!.stop();
      expect(await tree(outside)).toEqual(before);
      expect(shown.filter((text) => text.includes(SECRET))).toEqual([]);
      expect((await tree(root)).filter(([, text]) => text.includes(SECRET))).toEqual([]);
    }, 60_000);

    it("restoring a checkpoint and undoing it never write or delete what is outside", async () => {
      const before = await tree(outside);
      for (let i = 0, until = Date.now() + SECONDS * 1000; i < ROUNDS && Date.now() < until; i++) {
        const restored = await settle(h.caller.checkpoint.restore({ sessionId, checkpointId }));
        if (restored) await settle(h.caller.checkpoint.undoRestore({ sessionId, undoId: restored.undoId }));
      }
      await swapper!.stop();
      expect(await tree(outside)).toEqual(before);
    }, 60_000);
  },
);
