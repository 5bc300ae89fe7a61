import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { ACK_EVERY_BYTES, parseServerMessage } from "@/lib/terminal-protocol";
import { sandboxMode } from "@/server/test/sandbox-guard";
import { testSandbox } from "@/server/test/sandbox";
import { until } from "@/server/test/until";
import { SEND_WINDOW } from "./terminal-session";
import { TerminalService } from "./terminal-service";
import { handleTerminalSocket } from "./terminal-socket";

// A terminal sends a client no more than a window of output it has not acknowledged. The
// acknowledgement is the client's word, and anyone who may watch (a viewer) sends it: one that
// acknowledges everything at once and never reads its socket had every frame queued for it in
// the server's memory, at the speed of whatever runs in the terminal (a teammate's build, `yes`).

const PROJECT = "project-1";
let service: TerminalService;
let server: http.Server;
let port: number;
let workspace: string;
const serverSockets: WebSocket[] = [];

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), "tandem-term-ack-"));
  service = new TerminalService({ sandbox: testSandbox(sandboxMode) });
  const wss = new WebSocketServer({ noServer: true });
  server = http.createServer();
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://x");
    const terminal = service.get(PROJECT, url.searchParams.get("terminalId") ?? "")!;
    wss.handleUpgrade(req, socket, head, (ws) => {
      serverSockets.push(ws);
      handleTerminalSocket(ws, { terminal, canWrite: url.searchParams.get("view") !== "1" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  service.disposeAll();
  server.close();
  rmSync(workspace, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("queues no more for a viewer that acknowledges what it never read than one window", async () => {
  const id = (await service.create(PROJECT, workspace, { cols: 100, rows: 30 })).id;
  // The viewer: reads its snapshot, then stops reading its socket and acknowledges a gigabyte every 20 ms.
  const viewer = new WebSocket(`ws://127.0.0.1:${port}/?terminalId=${id}&view=1`);
  await new Promise<void>((resolve) =>
    viewer.on("message", (data: Buffer, isBinary) => {
      if (!isBinary && parseServerMessage(data.toString())?.type === "snapshot") resolve();
    }),
  );
  (viewer as unknown as { _socket: Socket })._socket.pause();
  const lying = setInterval(() => viewer.send(JSON.stringify({ type: "ack", bytes: 1_000_000_000 })), 20);
  const onServer = serverSockets.at(-1)!;
  // The owner floods and reads as a browser does.
  const owner = new WebSocket(`ws://127.0.0.1:${port}/?terminalId=${id}`);
  let received = 0;
  let unacked = 0;
  owner.on("message", (data: Buffer, isBinary) => {
    if (!isBinary) return;
    received += data.length;
    unacked += data.length;
    if (unacked >= ACK_EVERY_BYTES) {
      owner.send(JSON.stringify({ type: "ack", bytes: unacked }));
      unacked = 0;
    }
  });
  await new Promise((resolve) => owner.once("open", resolve));
  owner.send(JSON.stringify({ type: "input", data: "yes tandem-flood-line\r" }));
  let queued = 0;
  try {
    await until(() => received > 24 * 1024 * 1024, "the owner's output", 30_000);
    await sleep(200);
    queued = onServer.bufferedAmount;
  } finally {
    clearInterval(lying);
    owner.send(JSON.stringify({ type: "input", data: "\x03" }));
    owner.close();
    viewer.terminate();
  }
  // What the kernel holds for the unread socket is not counted here; Node's queue is.
  expect(queued).toBeLessThanOrEqual(2 * SEND_WINDOW);
}, 60_000);
