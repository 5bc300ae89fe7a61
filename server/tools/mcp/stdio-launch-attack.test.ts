import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMcpServersText } from "@/lib/mcp-config";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { createSandbox } from "@/server/sandbox/sandbox";
import { canSwitchIdentity } from "@/server/sandbox/identity";
import { createMcpServers, sandboxedLauncher } from "./project-servers";

// A project admin writes a stdio server's `env` in the project's settings. The server starts it
// as root (setpriv, prlimit, the cgroup's shell drop to the project's uid before bubblewrap), so
// a variable that the dynamic loader or libc reads would run the admin's code as root on the
// host, outside every sandbox: the attacker below builds a library in the workspace (as a
// member's terminal can) and names it in LD_PRELOAD. Its constructor writes the uid it ran as
// into a folder only root may write.

let workspace: string;
let marks: string;
const library = () => path.join(workspace, "evil.so");

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "tandem-mcp-env-")));
  marks = realpathSync(mkdtempSync(path.join(tmpdir(), "tandem-mcp-marks-")));
  chmodSync(marks, 0o700);
  const source = path.join(workspace, "evil.c");
  writeFileSync(
    source,
    `#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {
  char name[4096];
  snprintf(name, sizeof name, "${marks}/%d-%d", (int)getuid(), (int)getpid());
  FILE *f = fopen(name, "w");
  if (f) fclose(f);
}
`,
  );
  execFileSync("cc", ["-shared", "-fPIC", "-o", library(), source]);
});

afterAll(() => {
  rmSync(workspace, { recursive: true, force: true });
  rmSync(marks, { recursive: true, force: true });
});

describeSandboxed("an MCP stdio server's configured environment", () => {
  it.runIf(canSwitchIdentity())(
    "reaches the server inside its sandbox, never the root-run steps that start it",
    async () => {
      const sandbox = createSandbox({ host: { mode: "bwrap", masks: [], perProjectUid: true, limits: null } });
      const servers = createMcpServers({ fetchPolicy: { allowHosts: [] }, maxBackoffMs: 60_000 });
      try {
        await servers.sync(
          "p1",
          {
            evil: {
              command: "/bin/sh",
              args: ["-c", "env >&2; exit 3"],
              env: { LD_PRELOAD: library(), DOCS_API_KEY: "kept-for-the-server" },
            },
          },
          sandboxedLauncher(workspace, sandbox),
        );
        await servers.settled("p1", 20_000);
        const [status] = servers.status("p1");
        expect(status?.status).toBe("failed");
        // What the admin configured for the server is the server's own; what it printed of it
        // (shown to everyone in the project) is hidden as a secret is.
        expect(status?.error).toContain("DOCS_API_KEY=[secret DOCS_API_KEY]");
        expect(status?.error).not.toContain("kept-for-the-server");
        expect(readdirSync(marks).filter((mark) => mark.startsWith("0-"))).toEqual([]);
      } finally {
        await servers.dispose();
      }
    },
    60_000,
  );
});

describe("an MCP stdio server's environment, as saved and as started", () => {
  it("refuses, where the admin saves it, what loads code or is the sandbox's own", () => {
    const parsed = parseMcpServersText(
      JSON.stringify({
        mcpServers: { evil: { command: "x", env: { LD_PRELOAD: "/x.so", GCONV_PATH: "/x", OK_KEY: "v" } } },
      }),
    );
    expect(parsed.ok ? [] : parsed.problems.map((p) => p.path)).toEqual([
      "mcpServers.evil.env.LD_PRELOAD",
      "mcpServers.evil.env.GCONV_PATH",
    ]);
  });

  it("starts a server saved before with none of them in the starting steps' environment", async () => {
    const launch = sandboxedLauncher(
      workspace,
      createSandbox({ host: { mode: "none", masks: [], perProjectUid: false, limits: null } }),
    );
    const started = await launch({
      command: "/bin/true",
      env: { LD_PRELOAD: library(), GCONV_PATH: workspace, LOCPATH: workspace, PATH: workspace, DOCS_API_KEY: "kept" },
    });
    started.release?.();
    expect(started.env).toMatchObject({ DOCS_API_KEY: "kept" });
    for (const name of ["LD_PRELOAD", "GCONV_PATH", "LOCPATH"]) expect(started.env[name]).toBeUndefined();
    expect(started.env.PATH).not.toBe(workspace);
  });
});

describe("an MCP stdio server that floods its stdout", () => {
  it("fails at the SDK's line limit instead of being gathered in the server's memory (it held)", async () => {
    const servers = createMcpServers({ fetchPolicy: { allowHosts: [] }, maxBackoffMs: 60_000 });
    try {
      await servers.sync(
        "flood",
        { flood: { command: "/bin/sh", args: ["-c", "head -c 40000000 /dev/zero | tr '\\0' a; sleep 30"] } },
        sandboxedLauncher(
          workspace,
          createSandbox({ host: { mode: "none", masks: [], perProjectUid: false, limits: null } }),
        ),
      );
      await servers.settled("flood", 20_000);
      expect(servers.status("flood")[0]).toMatchObject({ status: "failed" });
    } finally {
      await servers.dispose();
    }
  }, 30_000);
});
