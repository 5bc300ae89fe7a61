import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiskBudget } from "@/server/sandbox/disk-budget";
import { diskUsageBytes } from "@/server/workspace/disk-usage";
import { limitWrites } from "@/server/workspace/write-budget";
import { useToolSessions } from "@/server/test/tool-session";
import { webFetchTool } from "./web-fetch";
import { writeFileTool } from "./write-file";

// Issue 38, 8: the agent's writing tools in a project past its disk budget (1 MB here) that runs
// no command, so no sandbox check has measured it: web_fetch's download was not refused at all
// (it is not an "edit" tool), and is now, as is write_file.

const session = useToolSessions();
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.alloc(1024, 7)),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server.close());

async function fullProject() {
  const s = await session({ fetchPolicy: { allowHosts: [`127.0.0.1:${port}`], timeoutMs: 2000 } });
  const budget = createDiskBudget({ budgetMiB: 1, fileSizeMiB: 2048, intervalMs: 100, measure: diskUsageBytes });
  limitWrites(s.ctx.workspace, {
    budgetMiB: 1,
    room: () => budget.room("p1", s.root),
    added: (bytes) => budget.added("p1", bytes),
  });
  // Written by a command in a terminal.
  await writeFile(path.join(s.root, "filled.bin"), Buffer.alloc(1100 * 1024, 1));
  return s;
}

describe("the agent's writes past the disk budget", () => {
  it("refuses web_fetch downloads and file writes with the budget's message, and writes nothing", async () => {
    const s = await fullProject();
    const fetched = await s.run(webFetchTool, {
      url: `http://127.0.0.1:${port}/data.bin`,
      download: true,
      output_path: "data.bin",
    });
    expect(fetched.error?.code).toBe("DISK_FULL");
    expect(fetched.error?.message).toMatch(/disk budget of 1 MB is reached/);
    const written = await s.run(writeFileTool, { path: "notes.txt", content: "more" });
    expect(written.error?.code).toBe("DISK_FULL");
    expect(await readdir(s.root)).toEqual(["filled.bin"]);
  });
});
