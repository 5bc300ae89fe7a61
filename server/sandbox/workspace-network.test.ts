import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { until } from "@/server/test/until";
import { TerminalService } from "@/server/terminal/terminal-service";
import { createShellSession, type ShellSession } from "@/server/workspace/shell-session";
import { canSwitchIdentity } from "./identity";
import { createSandbox, type LoggedConnection, type Sandbox } from "./sandbox";

// One network per workspace, as the agent and an attacker in another project see it: a server
// started in the background by one shell call answers the next call and the server's own
// connections into the namespace (what the preview uses); another project's shell cannot reach
// it; egress still goes only through the proxy, and each call sees its own refusals. Sharing
// needs a root server (joining a namespace is setns); without root each process keeps its own.

const SERVER = (port: number) =>
  `node -e 'require("http").createServer((q, s) => s.end("hello from the workspace " + q.url)).listen(${port}, "127.0.0.1")'`;

const ownChildren = () =>
  readdirSync(`/proc/${process.pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );

describeSandboxed("one network per workspace", () => {
  let dir: string;
  let sandbox: Sandbox;
  let origin: http.Server;
  let originPort: number;
  const logged: LoggedConnection[] = [];
  const policy: NetworkPolicy = { policy: "allow-list", allowHosts: ["allowed.test"] };
  const shells: ShellSession[] = [];
  const shell = (root: string, projectId: string, sessionId: string) => {
    const session = createShellSession({ workspace: { root }, projectId, sessionId, sandbox });
    shells.push(session);
    return session;
  };
  const run = (session: ShellSession, command: string) =>
    session.run(command, { timeoutMs: 30_000, signal: new AbortController().signal });
  let first: string;
  let second: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tandem-netns-"));
    first = mkdtempSync(path.join(dir, "first-"));
    second = mkdtempSync(path.join(dir, "second-"));
    origin = http.createServer((_req, res) => res.end("from the allowed origin"));
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    originPort = (origin.address() as AddressInfo).port;
    sandbox = createSandbox({
      host: { mode: "bwrap", masks: [dir], perProjectUid: true, limits: null },
      policies: { get: async () => policy },
      testHosts: new Map([["allowed.test", "127.0.0.1"]]),
      log: (c) => logged.push(c),
    });
  });

  afterAll(async () => {
    for (const session of shells) await session.dispose();
    await sandbox?.networks?.close();
    origin?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.runIf(canSwitchIdentity())(
    "a background server of one shell call answers the next call, and nothing of another project",
    async () => {
      const agent = shell(first, "project-a", "agent-a");
      const job = await agent.start(SERVER(5173));
      expect(job.running).toBe(true);
      await until(
        async () =>
          (await run(agent, "curl -s http://127.0.0.1:5173/next")).stdout.includes("hello from the workspace"),
        "the background server answers the next call",
        15_000,
      );
      // Another session of the same workspace shares it too, and so does a terminal.
      const other = shell(first, "project-a", "agent-b");
      expect((await run(other, "curl -s http://127.0.0.1:5173/other")).stdout).toContain("/other");
      const terminals = new TerminalService({ sandbox });
      try {
        const info = await terminals.create("project-a", first, { cols: 120, rows: 30 });
        const terminal = terminals.get("project-a", info.id)!;
        let seen = "";
        terminal.attach({
          output: (frame) => (seen += frame.toString("utf8")),
          message: () => {},
          close: () => {},
        });
        terminal.write("curl -s http://127.0.0.1:5173/from-a-terminal\r");
        await until(
          () => seen.includes("hello from the workspace /from-a-terminal"),
          "the terminal reaches it",
          15_000,
        );
      } finally {
        terminals.disposeAll();
      }

      // The server itself sees it listen, and reaches it inside the namespace (the preview's way in).
      const ports = await sandbox.networks!.ports(first);
      expect(ports).toContainEqual(expect.objectContaining({ port: 5173, address: "loopback" }));
      expect(ports.find((p) => p.port === 5173)?.process).toContain("node -e");
      const socket = await sandbox.networks!.connect(first, 5173);
      socket.write("GET /from-the-server HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
      const answer = await new Promise<string>((resolve) => {
        let text = "";
        socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        socket.on("end", () => resolve(text));
      });
      expect(answer).toContain("hello from the workspace /from-the-server");

      // Another project's workspace: the same port is someone else's (or nobody's) there.
      const stranger = shell(second, "project-b", "attacker");
      const attempt = await run(stranger, "curl -s -m 3 http://127.0.0.1:5173/ || echo unreachable");
      expect(attempt.stdout).not.toContain("hello from the workspace");
      expect(attempt.stdout).toContain("unreachable");
      expect(await sandbox.networks!.ports(second)).toEqual([]);
      // Nor from the host: the namespace's loopback is not the host's.
      const fromHost = await fetch("http://127.0.0.1:5173/").then(
        (r) => r.text(),
        () => "unreachable",
      );
      expect(fromHost).not.toContain("hello from the workspace");
    },
    90_000,
  );

  it.runIf(canSwitchIdentity())(
    "egress goes only through the proxy, and each call sees the refusals of its own processes",
    async () => {
      const agent = shell(first, "project-a", "egress-agent");
      const allowed = await run(agent, `curl -s http://allowed.test:${originPort}/`);
      expect(allowed.stdout).toContain("from the allowed origin");
      expect(logged.some((c) => c.host === "allowed.test" && c.allowed && c.source.id === "egress-agent")).toBe(true);
      // Straight to the host, around the proxy: the namespace has no way out.
      const direct = await run(agent, `curl -s -m 3 --noproxy '*' http://10.0.2.2:${originPort}/ || echo no-route`);
      expect(direct.stdout).toContain("no-route");
      // A refusal of another process of the same workspace is not this call's.
      const neighbour = shell(first, "project-a", "neighbour");
      const refused = await run(neighbour, "curl -s https://refused.test/ || true");
      expect(refused.deniedHosts).toEqual(["refused.test"]);
      const quiet = await run(agent, "true");
      expect(quiet.deniedHosts).toEqual([]);
    },
    60_000,
  );

  it.runIf(canSwitchIdentity())(
    "a holder that dies is replaced inside the same namespace",
    async () => {
      const agent = shell(first, "project-a", "holder-agent");
      await agent.start(SERVER(8080));
      await until(
        async () => (await sandbox.networks!.ports(first)).some((p) => p.port === 8080),
        "the port listens",
        15_000,
      );
      // Only this process's own children: the holders it started (a bubblewrap running the holder script).
      for (const pid of ownChildren()) {
        if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("/run/tandem/holder.cjs"))
          process.kill(pid, "SIGKILL");
      }
      await until(
        async () => (await sandbox.networks!.ports(first).catch(() => [])).some((p) => p.port === 8080),
        "a new holder sees the same namespace",
        15_000,
      );
      expect((await run(agent, "curl -s http://127.0.0.1:8080/again")).stdout).toContain("/again");
      // Stop ends the process listening there, and only in this workspace.
      expect(await sandbox.networks!.stop(second, 8080)).toBe(false);
      expect(await sandbox.networks!.stop(first, 8080)).toBe(true);
      await until(
        async () => !(await sandbox.networks!.ports(first)).some((p) => p.port === 8080),
        "the stopped port is gone",
        10_000,
      );
    },
    60_000,
  );
});
