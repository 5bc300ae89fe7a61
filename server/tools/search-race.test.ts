import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { canSwitchIdentity, prepareWorkspace, projectIdentity } from "@/server/sandbox/identity";
import { canSwapLinks, startLinkSwapper } from "@/server/test/temp-dirs";
import { globTool } from "./glob";
import { grepTool } from "./grep";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();
type ToolSession = Awaited<ReturnType<typeof session>>;

/**
 * Makes the workspace's folder `d` (30 files and a needle), a link `swap` to `target`, hands the
 * tree to its project, then greps and globs while a terminal-like swapper exchanges `d` and the
 * link: returns what leaked (a grep line containing `leak`, a glob name containing `leakName`)
 * and asserts that the workspace's own needle was found meanwhile.
 */
async function raceSearches(s: ToolSession, target: string, leak: string, glob: string, leakName: string) {
  await mkdir(path.join(s.root, "d"));
  for (let i = 0; i < 30; i++) await writeFile(path.join(s.root, "d", `f${i}.txt`), "x\n");
  await writeFile(path.join(s.root, "d/note.txt"), "needle in the workspace\n");
  await symlink(target, path.join(s.root, "swap"));
  // What the first sandbox launch does: a project process exists only after it.
  prepareWorkspace(s.root, projectIdentity(s.root));
  const swapper = await startLinkSwapper(path.join(s.root, "d"), path.join(s.root, "swap"));
  const leaks: string[] = [];
  let found = 0;
  const deadline = Date.now() + 10_000;
  try {
    for (let i = 0; i < 100 && Date.now() < deadline && leaks.length === 0; i++) {
      const grep = await s.run(grepTool, { pattern: "needle", output_mode: "content" });
      const text = String(grep.llm);
      if (text.includes("needle in the workspace")) found++;
      if (text.includes(leak)) leaks.push(`grep at ${i}: ${text}`);
      const names = String((await s.run(globTool, { pattern: glob })).llm);
      if (names.includes(leakName)) leaks.push(`glob at ${i}: ${names}`);
    }
  } finally {
    expect(await swapper.stop()).toBeGreaterThan(0);
  }
  expect(found).toBeGreaterThan(0);
  return leaks;
}

// ripgrep walks the tree by path strings: a member's terminal that exchanges a folder and a link
// to a host folder while the agent searches leads it out. As root it read root-only host files.
describe.skipIf(!canSwapLinks || !canSwitchIdentity())(
  "searching while a terminal swaps a folder for a link to a root-only host folder",
  () => {
    it("never returns a line or a name from the host folder", async () => {
      const s = await session();
      await writeFile(path.join(s.outside, "host-secret.txt"), "needle from the host\n");
      await chmod(path.join(s.outside, "host-secret.txt"), 0o600);
      await chmod(s.outside, 0o700);
      expect(await raceSearches(s, s.outside, "from the host", "**/*secret*", "host-secret")).toEqual([]);
    });
  },
);

// The same race pointed at another project's tree: rg runs as this project's uid, outside any
// sandbox, so what it can be led to is what that uid may read on the host. A workspace's files
// are made as any process makes them (0644 under the usual umask), so another project's tree
// must be closed to this uid at its root, as the sandbox's masks close it to this project's processes.
describe.skipIf(!canSwapLinks || !canSwitchIdentity())(
  "searching while a terminal swaps a folder for a link to another project's tree",
  () => {
    it("never returns a line or a name from the other project", async () => {
      const s = await session();
      const other = path.join(s.outside, "other-project");
      await mkdir(other);
      await writeFile(path.join(other, "their-secret.txt"), "needle from the other project\n");
      await chmod(path.join(other, "their-secret.txt"), 0o644);
      prepareWorkspace(other, projectIdentity(other));
      expect(await raceSearches(s, other, "other project", "**/their-*", "their-secret")).toEqual([]);
    });
  },
);

// The same race pointed at a world-readable host folder (an install directory's 0644 .env, /etc):
// what the project's uid may read on the host is still outside the project. rg must reach nothing
// but the tree, whatever its uid may read.
describe.skipIf(!canSwapLinks || !canSwitchIdentity())(
  "searching while a terminal swaps a folder for a link to a world-readable host folder",
  () => {
    it("never returns a line or a name from the host folder", async () => {
      const s = await session();
      const host = await mkdtemp(path.join(os.tmpdir(), "tandem-host-"));
      try {
        await chmod(host, 0o755);
        await writeFile(path.join(host, "public-secret.env"), "needle planted on the host\n");
        await chmod(path.join(host, "public-secret.env"), 0o644);
        expect(await raceSearches(s, host, "planted on the host", "**/public-*", "public-secret")).toEqual([]);
      } finally {
        await rm(host, { recursive: true, force: true });
      }
    });
  },
);
