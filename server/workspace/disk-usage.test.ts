import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useToolSessions } from "@/server/test/tool-session";
import { swapWithLink } from "@/server/test/swap-with-link";
import { canSwapLinks } from "@/server/test/temp-dirs";
import { diskUsageBytes } from "./disk-usage";

const MiB = 1024 * 1024;
const session = useToolSessions();

describe("disk usage", () => {
  it("counts allocated blocks, each hard link once, and no symlink target", async () => {
    const s = await session();
    const root = s.ctx.workspace.root;
    const before = await diskUsageBytes(root);
    const shell = `head -c ${2 * MiB} /dev/urandom > a && ln a b && ln -s /usr c && truncate -s 1G sparse && mkdir -p d/e && head -c 4096 /dev/urandom > d/e/f`;
    const { execSync } = await import("node:child_process");
    execSync(shell, { cwd: root });
    const grown = (await diskUsageBytes(root)) - before;
    expect(grown).toBeGreaterThanOrEqual(2 * MiB + 4096);
    expect(grown).toBeLessThan(3 * MiB);
  });
});

describe.runIf(canSwapLinks)("disk usage while a folder is swapped for a link in a loop", () => {
  it("never counts the host folder the link leads to", async () => {
    const s = await session();
    const root = s.ctx.workspace.root;
    mkdirSync(path.join(root, "d"));
    writeFileSync(path.join(root, "d/small.txt"), "inside");
    // A host folder of 8 MB (the test's own temp folder, outside the workspace).
    const host = mkdtempSync(path.join(os.tmpdir(), "tandem-host-"));
    writeFileSync(path.join(host, "big.bin"), Buffer.alloc(8 * MiB, 1));
    const swapper = await swapWithLink(root, "d", host);
    const measured: number[] = [];
    try {
      for (let i = 0; i < 200; i++) measured.push(await diskUsageBytes(root));
    } finally {
      await swapper.stop();
      rmSync(host, { recursive: true, force: true });
    }
    expect(Math.max(...measured)).toBeLessThan(MiB);
  }, 60_000);
});
