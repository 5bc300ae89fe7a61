import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { ACK_EVERY_BYTES, parseServerMessage, TerminalCloseCode } from "@/lib/terminal-protocol";
import { sandboxMode } from "@/server/test/sandbox-guard";
import { HIGH_WATERMARK, SEND_WINDOW } from "./terminal-session";
import { TerminalService } from "./terminal-service";
import { handleTerminalSocket } from "./terminal-socket";
import { testSandbox } from "@/server/test/sandbox";
import { until } from "@/server/test/until";

const PROJECT = "project-1";
let service: TerminalService;
let server: http.Server;
let port: number;
let workspace: string;

beforeAll(async () => {
  process.env.DATABASE_URL = "postgres://u:hunter2@db/x";
  process.env.FOO_API_KEY = "sk-terminal-leak";
  workspace = mkdtempSync(path.join(tmpdir(), "tandem-term-"));
  service = new TerminalService({ sandbox: testSandbox(sandboxMode) });
  const wss = new WebSocketServer({ noServer: true });
  server = http.createServer();
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://x");
    const terminal = service.get(PROJECT, url.searchParams.get("terminalId") ?? "");
    if (!terminal) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) =>
      handleTerminalSocket(ws, { terminal, canWrite: url.searchParams.get("view") !== "1" }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  service.disposeAll();
  server.close();
  rmSync(workspace, { recursive: true, force: true });
});

class Client {
  readonly ws: WebSocket;
  snapshot: string | null = null;
  tail = "";
  received = 0;
  exitCode: number | null | undefined;
  closeCode: number | undefined;
  private unacked = 0;

  constructor(terminalId: string, options: { ack?: boolean; view?: boolean } = {}) {
    const query = `terminalId=${terminalId}${options.view ? "&view=1" : ""}`;
    this.ws = new WebSocket(`ws://127.0.0.1:${port}/?${query}`);
    this.ws.on("message", (data: Buffer, isBinary) => {
      if (!isBinary) {
        const message = parseServerMessage(data.toString());
        if (message?.type === "snapshot") this.snapshot = message.data;
        if (message?.type === "exit") this.exitCode = message.code;
        return;
      }
      this.received += data.length;
      this.tail = (this.tail + data.toString()).slice(-256 * 1024);
      this.unacked += data.length;
      if (options.ack !== false && this.unacked >= ACK_EVERY_BYTES) {
        this.ws.send(JSON.stringify({ type: "ack", bytes: this.unacked }));
        this.unacked = 0;
      }
    });
    this.ws.on("close", (code) => (this.closeCode = code));
  }

  send(message: object | string): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  type(data: string): void {
    this.send({ type: "input", data });
  }

  async waitFor(pattern: RegExp, timeoutMs = 5000): Promise<number> {
    const start = Date.now();
    while (!pattern.test(this.tail)) {
      if (Date.now() - start > timeoutMs) {
        throw new Error(`timed out waiting for ${pattern}; tail: ${JSON.stringify(this.tail.slice(-300))}`);
      }
      await sleep(10);
    }
    return Date.now() - start;
  }

  async ready(): Promise<this> {
    await until(() => this.snapshot !== null, "the snapshot", 5000);
    return this;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
/** JS heap and buffers this process still holds after full garbage collections (one can leave some). */
function retainedBytes(): number {
  collectGarbage();
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

function processesMatching(marker: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function open(): Promise<string> {
  return (await service.create(PROJECT, workspace, { cols: 100, rows: 30 })).id;
}

/** A terminal with a client that never acknowledges and one that does, which runs `command`. */
async function floodBesideSilentClient(command: string): Promise<{ slow: Client; fast: Client }> {
  const id = await open();
  const slow = await new Client(id, { ack: false }).ready();
  const fast = await new Client(id).ready();
  fast.type(`${command}\r`);
  return { slow, fast };
}

describe("terminal sessions", () => {
  it("echoes a command round trip in the workspace", async () => {
    const client = await new Client(await open()).ready();
    client.type("echo hello-$((40+2)) $PWD\r");
    // Sandboxed, the shell sees the workspace at /workspace, whatever the server's data directory.
    await client.waitFor(new RegExp(`hello-42 ${sandboxMode === "bwrap" ? "/workspace" : workspace}`));
    client.ws.close();
  });

  it("prompts with the place in the project, and never runs a directory's name", async () => {
    const client = await new Client(await open()).ready();
    // `$` as the sandbox's user, `#` as root where terminals run unsandboxed.
    await client.waitFor(/:(\x1b\[[0-9;]*m)?workspace(\x1b\[[0-9;]*m)?[$#] /);
    expect(client.tail).not.toContain(workspace);
    client.type("mkdir -p 'src/$(touch pwned)' && cd 'src/$(touch pwned)'\r");
    await client.waitFor(/workspace\/src\/\$\(touch pwned\).*[$#] /);
    client.type("cd /usr\r");
    await client.waitFor(/:(\x1b\[[0-9;]*m)?\/usr(\x1b\[[0-9;]*m)?[$#] /);
    client.type("ls $TANDEM_WORKSPACE/src; echo listed-$((1+1))\r");
    await client.waitFor(/listed-2/);
    expect(readdirSync(workspace)).not.toContain("pwned");
    expect(readdirSync(path.join(workspace, "src"))).toEqual(["$(touch pwned)"]);
    expect(readdirSync(path.join(workspace, "src", "$(touch pwned)"))).toEqual([]);
    client.ws.close();
  });

  it("restores earlier output and scrollback from the snapshot on reconnect", async () => {
    const id = await open();
    const first = await new Client(id).ready();
    first.type("seq 1 3000; echo seq-$((1+1))-done\r");
    await first.waitFor(/seq-2-done/);
    first.ws.close();
    const second = await new Client(id).ready();
    expect(second.snapshot).toMatch(/\b1\r\n2\r\n3\r\n/);
    expect(second.snapshot).toMatch(/2999\r\n3000\r\n/);
    expect(second.snapshot).toContain("seq-2-done");
    second.type("echo after-$((2+3))\r");
    await second.waitFor(/after-5/);
    expect(second.tail).not.toContain("seq-2-done");
    second.ws.close();
  });

  it("stops a yes flood on Ctrl-C within a second, and holds no more memory as the flood goes on", async () => {
    const client = await new Client(await open()).ready();
    client.type("yes\r");
    await client.waitFor(/y\r\ny\r\ny\r\n/);
    await sleep(300);
    // What the process still holds after full collections, from early in the flood until 4 MB more
    // has passed. RSS is not the measure: it also counts this test client's garbage (the flood's
    // strings) and the allocator's slack, which moved by tens of MB with Node's version alone.
    const early = retainedBytes();
    const receivedEarly = client.received;
    let latest = early;
    for (const start = Date.now(); client.received - receivedEarly < 4 * 1024 * 1024 && Date.now() - start < 15_000; ) {
      await sleep(200);
      latest = Math.max(latest, retainedBytes());
    }
    expect(client.received - receivedEarly).toBeGreaterThanOrEqual(4 * 1024 * 1024);
    const sentAt = Date.now();
    client.type("\x03");
    client.type("echo stopped-$((3+4))\r");
    await client.waitFor(/stopped-7/, 1000);
    expect(Date.now() - sentAt).toBeLessThan(1000);
    expect(latest - early).toBeLessThan(2 * 1024 * 1024);
    client.ws.close();
  });

  it("a client that does not acknowledge gets one window; a plain flood goes on for the others, and it catches up with the latest lines, not all it missed", async () => {
    const { slow, fast } = await floodBesideSilentClient("yes tandem-line");
    // The PTY is not paused for the slow client: the others get twice what would pause it.
    await until(() => fast.received > 2 * HIGH_WATERMARK, "the fast client's output", 20_000);
    expect(slow.received).toBeLessThanOrEqual(SEND_WINDOW + 128 * 1024);
    fast.type("\x03");
    fast.type("echo caught-$((4+5))\r");
    await fast.waitFor(/caught-9/);
    const missed = fast.received - slow.received;
    const before = slow.received;
    slow.send({ type: "ack", bytes: before });
    await slow.waitFor(/caught-9/);
    // The flood's lines that would scroll out of its scrollback were left out...
    expect(slow.received - before).toBeLessThan(missed / 2);
    // ...and the screen and scrollback it shows end as the other client's do.
    const lines = (text: string) => text.split("\r\n").slice(-5_030);
    expect(lines(slow.tail)).toEqual(lines(fast.tail));
    slow.ws.close();
    fast.ws.close();
  });

  it("pauses the PTY while a client does not acknowledge output full of escape sequences", async () => {
    const { slow, fast } = await floodBesideSilentClient("yes $'\\e[1mbold\\e[0m'");
    // The slow client's window, then its backlog up to the high watermark.
    await until(() => fast.received > SEND_WINDOW + HIGH_WATERMARK, "the fast client's output", 20_000);
    await sleep(500);
    const received = fast.received;
    await sleep(500);
    expect(slow.received).toBeLessThanOrEqual(SEND_WINDOW + 128 * 1024);
    expect(fast.received - received).toBeLessThan(128 * 1024);
    slow.ws.close();
    fast.ws.close();
  });

  it("keeps secrets of the server out of the shell's environment", async () => {
    const client = await new Client(await open()).ready();
    client.type("env; echo env-$((5+5))-end\r");
    await client.waitFor(/env-10-end/);
    expect(client.tail).not.toMatch(/hunter2|sk-terminal-leak|DATABASE_URL|API_KEY/);
    expect(client.tail).toMatch(/TERM=xterm-256color/);
    client.ws.close();
  });

  it("kills the whole process tree on close, including background jobs", async () => {
    const id = await open();
    const client = await new Client(id).ready();
    client.type("sleep 987651 & (trap '' HUP; exec sleep 987652) & echo started-$((6+6))\r");
    await client.waitFor(/started-12/);
    await until(() => processesMatching("98765").length === 2, "both processes", 5000);
    expect(service.close(PROJECT, id)).toBe(true);
    await until(() => processesMatching("98765").length === 0, "no process left", 3000);
    await until(() => client.closeCode !== undefined, "the socket to close", 5000);
    expect(client.closeCode).toBe(TerminalCloseCode.terminalClosed);
    expect(service.list(PROJECT).some((t) => t.id === id)).toBe(false);
  });

  it("reports the exit code when the shell exits", async () => {
    const id = await open();
    const client = await new Client(id).ready();
    client.type("exit 3\r");
    await until(() => client.exitCode !== undefined, "the exit code", 5000);
    expect(client.exitCode).toBe(3);
    expect(service.list(PROJECT).find((t) => t.id === id)).toMatchObject({ exited: true, exitCode: 3 });
    const late = await new Client(id).ready();
    await until(() => late.exitCode === 3, "the exit code for a late client", 5000);
    service.close(PROJECT, id);
  });

  it("closes a socket that sends a malformed message and keeps serving others", async () => {
    const id = await open();
    const bad = await new Client(id).ready();
    const good = await new Client(id).ready();
    bad.send("{not json");
    await until(() => bad.closeCode !== undefined, "the bad socket to close", 5000);
    expect(bad.closeCode).toBe(TerminalCloseCode.protocolError);
    good.type("echo still-$((7+7))\r");
    await good.waitFor(/still-14/);
    good.ws.close();
  });

  it("ignores input from a read-only viewer but sends it all output", async () => {
    const id = await open();
    const viewer = await new Client(id, { view: true }).ready();
    const writer = await new Client(id).ready();
    viewer.type("echo viewer-$((8+8))\r");
    writer.type("echo writer-$((9+9))\r");
    await viewer.waitFor(/writer-18/);
    expect(viewer.tail).not.toContain("viewer-16");
    viewer.ws.close();
    writer.ws.close();
  });
});
