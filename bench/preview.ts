// The preview proxy's cost, against its reference in the same run. Run with `npm run bench:preview`.
// A dev server (plain node: a 4 KiB page and a hot-reload WebSocket that answers each message)
// runs in a workspace's network, in bubblewrap, as the agent's or a terminal's would. One client
// process, at the sandbox's niceness, with one http client and the same keep-alive and
// concurrency on every leg, sends the same requests three ways, interleaved: direct (connections
// made inside the workspace's network to 127.0.0.1:5173, handed to it as the holder hands them
// to the proxy), through the preview server (server/preview, as start-server.ts wires it: the
// session cookie, the access check, the pooled connections, the header rewriting), and through a
// bare TCP relay in the server's process onto the same kind of connection: the floor of anything
// that sits in the path (one more trip through loopback and an event loop, near 2x of a ~60 µs
// request here). Request latency p50 and p99 (one keep-alive connection, one request at a time),
// throughput (16 connections), the WebSocket's message round trip p50 and p99, and the server's
// CPU time per request. Target: the proxy at most 1.5x direct at p50 and p99; it prints which it
// missed. Figures only: nothing here fails a build.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_LIMITS } from "@/lib/sandbox-limits";
import { createPreviewAccess, spendInMemory } from "@/server/preview/preview-access";
import { createPreviewHandlers, PREVIEW_COOKIE } from "@/server/preview/preview-server";
import { canSwitchIdentity } from "@/server/sandbox/identity";
import { bwrapAvailable, defaultSandboxHost } from "@/server/sandbox/launcher";
import { createSandbox } from "@/server/sandbox/sandbox";

const TARGET_RATIO = 1.5;
const PORT = 5173;

const DEV_SERVER = `const http = require("http");
const crypto = require("crypto");
const page = "<!doctype html>" + "<p>preview bench</p>".repeat(200);
const server = http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "text/html", "content-length": Buffer.byteLength(page) });
  res.end(page);
});
server.keepAliveTimeout = 60000;
server.on("upgrade", (req, socket) => {
  const accept = crypto.createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  socket.setNoDelay(true);
  socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept + "\\r\\n\\r\\n");
  // Each small masked frame from the client is answered with the same text, unmasked (a hot-reload message).
  socket.on("data", (b) => {
    for (let i = 0; i + 6 <= b.length; ) {
      const len = b[i + 1] & 0x7f, mask = b.subarray(i + 2, i + 6), text = Buffer.alloc(len);
      for (let j = 0; j < len; j++) text[j] = b[i + 6 + j] ^ mask[j % 4];
      socket.write(Buffer.concat([Buffer.from([0x81, len]), text]));
      i += 6 + len;
    }
  });
});
server.listen(${PORT}, "127.0.0.1", () => console.log("listening"));
`;

// The one client of every leg, a separate process at the sandbox's niceness, sent its direct
// connections by the bench (over IPC, as the holder hands them to the proxy). argv: proxyPort
// floorPort hostHeader cookie. Legs are interleaved request by request (message by message; in
// 250 ms slices for throughput), so a burst of load elsewhere falls on all of them alike.
const CLIENT = `const http = require("http");
const net = require("net");
const [proxyPort, floorPort, hostHeader, cookie] = process.argv.slice(2);
const LEGS = ["direct", "proxy", "floor"];
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const waiting = [];
const spare = [];
process.on("message", (m, socket) => { if (socket) { const w = waiting.shift(); w ? w(socket) : spare.push(socket); } });
const direct = () => new Promise((resolve) => { const s = spare.shift(); if (s) return resolve(s); waiting.push(resolve); process.send({ want: 1 }); });
// Each leg gets its connections its own way; everything above the socket is the same http client.
function connection(leg, made) {
  if (leg === "direct") return void direct().then((s) => made(null, s.setNoDelay(true)));
  const s = net.connect(Number(leg === "proxy" ? proxyPort : floorPort), "127.0.0.1");
  s.setNoDelay(true);
  s.once("connect", () => made(null, s)).once("error", made);
}
function agentOf(leg, sockets) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  agent.createConnection = (_o, made) => { connection(leg, made); return undefined; };
  return agent;
}
// The dev server sees the Host the proxy sends it (localhost:port); the proxy and floor get the preview's.
const headersOf = (leg) => ({ host: leg === "direct" ? "localhost:5173" : hostHeader, cookie });
const get = (leg, agent) => new Promise((resolve, reject) => {
  http.get({ host: "127.0.0.1", path: "/", headers: headersOf(leg), agent }, (res) => { res.resume(); res.on("end", resolve); }).on("error", reject);
});
const time = async (f) => { const t = process.hrtime.bigint(); await f(); return Number(process.hrtime.bigint() - t) / 1e6; };
const summary = (times) => ({ p50: pct(times, 0.5), p99: pct(times, 0.99) });
async function latency(n) {
  const agents = Object.fromEntries(LEGS.map((leg) => [leg, agentOf(leg, 1)]));
  const times = Object.fromEntries(LEGS.map((leg) => [leg, []]));
  for (let i = 0; i < 200; i++) for (const leg of LEGS) await get(leg, agents[leg]);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < LEGS.length; j++) { const leg = LEGS[(i + j) % LEGS.length]; times[leg].push(await time(() => get(leg, agents[leg]))); }
  for (const agent of Object.values(agents)) agent.destroy();
  return Object.fromEntries(LEGS.map((leg) => [leg, summary(times[leg])]));
}
async function throughput(connections, slices, ms) {
  const done = Object.fromEntries(LEGS.map((leg) => [leg, 0]));
  const agents = Object.fromEntries(LEGS.map((leg) => [leg, agentOf(leg, connections)]));
  for (let i = 0; i < slices; i++)
    for (const leg of LEGS) {
      const end = Date.now() + ms;
      await Promise.all(Array.from({ length: connections }, async () => { while (Date.now() < end) { await get(leg, agents[leg]); done[leg]++; } }));
    }
  for (const agent of Object.values(agents)) agent.destroy();
  return Object.fromEntries(LEGS.map((leg) => [leg, done[leg] / ((slices * ms) / 1000)]));
}
const upgrade = (leg) => new Promise((resolve, reject) => {
  const req = http.request({ host: "127.0.0.1", path: "/hmr", agent: agentOf(leg, 1), headers: { ...headersOf(leg), origin: "http://" + headersOf(leg).host, connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } });
  req.on("upgrade", (_res, s) => { s.setNoDelay(true); resolve(s); });
  req.on("response", (res) => reject(new Error(leg + ": no upgrade: HTTP " + res.statusCode)));
  req.on("error", reject);
  req.end();
});
async function messages(n) {
  const sockets = {};
  for (const leg of LEGS) sockets[leg] = await upgrade(leg);
  const frame = Buffer.from([0x81, 0x80 | 4, 1, 2, 3, 4, 0x70 ^ 1, 0x69 ^ 2, 0x6e ^ 3, 0x67 ^ 4]);
  const roundTrip = (s) => time(() => new Promise((resolve) => { s.once("data", resolve); s.write(frame); }));
  const times = Object.fromEntries(LEGS.map((leg) => [leg, []]));
  for (let i = 0; i < 100; i++) for (const leg of LEGS) await roundTrip(sockets[leg]);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < LEGS.length; j++) { const leg = LEGS[(i + j) % LEGS.length]; times[leg].push(await roundTrip(sockets[leg])); }
  for (const s of Object.values(sockets)) s.destroy();
  return Object.fromEntries(LEGS.map((leg) => [leg, summary(times[leg])]));
}
// The server's CPU per request: a run of one leg alone, the bench reading its own CPU time around it.
const ask = (what) => new Promise((resolve) => { process.once("message", resolve); process.send({ cpu: what }); });
async function cpu(leg, n) {
  const agent = agentOf(leg, 1);
  for (let i = 0; i < 100; i++) await get(leg, agent);
  await ask("start");
  for (let i = 0; i < n; i++) await get(leg, agent);
  const { micros } = await ask("stop");
  agent.destroy();
  return micros / n;
}
(async () => {
  const l = await latency(2000);
  const t = await throughput(16, 4, 250);
  const w = await messages(1000);
  const c = { proxy: await cpu("proxy", 2000), floor: await cpu("floor", 2000) };
  process.send({ figures: Object.fromEntries(LEGS.map((leg) => [leg, { latency: l[leg], throughput: t[leg], ws: w[leg], cpu: c[leg] ?? 0 }])) });
  process.disconnect();
})().catch((e) => { console.error(e); process.exit(1); });
`;

type Leg = "direct" | "proxy" | "floor";
type Figures = {
  latency: { p50: number; p99: number };
  throughput: number;
  ws: { p50: number; p99: number };
  cpu: number;
};

async function main() {
  if (!(await bwrapAvailable()) || !canSwitchIdentity()) {
    console.log("workspace networks need bubblewrap and root: nothing to measure.");
    return;
  }
  const base = mkdtempSync(path.join(tmpdir(), "tandem-bench-preview-"));
  const workspace = path.join(base, "ws");
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, "dev.js"), DEV_SERVER);
  const clientScript = path.join(base, "client.js");
  writeFileSync(clientScript, CLIENT);
  const projectId = randomUUID();
  const sandbox = createSandbox({
    host: defaultSandboxHost("bwrap", { dataDir: path.join(base, "data"), limits: DEFAULT_LIMITS }),
    policies: { get: async () => ({ policy: "off", allowHosts: [] }) },
  });
  const networks = sandbox.networks;
  if (!networks) {
    console.log("this machine gives workspaces no network of their own: nothing to measure.");
    return;
  }
  const launched = await sandbox.launch({
    workspaceRoot: workspace,
    command: ["node", "dev.js"],
    newSession: true,
    projectId,
    source: { kind: "terminal", id: "bench" },
  });
  const c = launched.command;
  const dev = spawn(c.file, c.args, { env: c.env as NodeJS.ProcessEnv, cwd: c.cwd, uid: c.uid, gid: c.gid });
  await new Promise<void>((resolve) => dev.stdout!.once("data", () => resolve()));

  // The preview server as start-server.ts wires it, in this process as in the server's.
  const access = createPreviewAccess("bench secret");
  const handlers = createPreviewHandlers({
    access,
    domain: "localhost",
    secure: false,
    spendEntry: spendInMemory(),
    admits: async () => true,
    link: async () => null,
    onAccessEnd: () => () => {},
    connect: ({ port }) => networks.connect(workspace, port),
  });
  const proxy = http.createServer((req, res) => void handlers.request(req, res));
  proxy.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head));
  // The floor: the same hop with no HTTP in it, a bare relay in this process onto the same kind of connection.
  const floor = net.createServer((client) => {
    client.setNoDelay(true);
    networks.connect(workspace, PORT).then(
      (upstream) => {
        upstream.setNoDelay(true);
        client.pipe(upstream).on("error", () => upstream.destroy());
        upstream.pipe(client).on("error", () => client.destroy());
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      },
      () => client.destroy(),
    );
  });
  const listen = async (server: net.Server) => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as net.AddressInfo).port;
  };
  const [proxyPort, floorPort] = [await listen(proxy), await listen(floor)];
  const session = access.redeem(access.entryToken(projectId, PORT, "bench"), projectId, PORT)!;

  async function round(): Promise<Record<Leg, Figures>> {
    const args = [String(proxyPort), String(floorPort), `${PORT}-${projectId}.localhost:${proxyPort}`];
    const client = spawn(
      "/usr/bin/nice",
      [
        "-n",
        String(DEFAULT_LIMITS.nice),
        process.execPath,
        clientScript,
        ...args,
        `${PREVIEW_COOKIE}=${session.cookie}`,
      ],
      {
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      },
    );
    let cpuFrom = process.cpuUsage();
    return new Promise((resolve, reject) => {
      client.on("message", (message: { want?: number; cpu?: string; figures?: Record<Leg, Figures> }) => {
        if (message.want)
          void networks!.connect(workspace, PORT).then((socket) => client.send({ direct: true }, socket), reject);
        else if (message.cpu === "start") {
          cpuFrom = process.cpuUsage();
          client.send({});
        } else if (message.cpu === "stop") {
          const used = process.cpuUsage(cpuFrom);
          client.send({ micros: used.user + used.system });
        } else if (message.figures) resolve(message.figures);
      });
      client.on("exit", (code) => code && reject(new Error(`the client exited with code ${code}`)));
    });
  }

  const loadBefore = loadavg()[0]!;
  const rounds: Record<Leg, Figures>[] = [];
  for (let i = 0; i < 3; i++) rounds.push(await round());
  const mid = (leg: Leg, pick: (f: Figures) => number) => rounds.map((r) => pick(r[leg])).sort((a, b) => a - b)[1]!;
  console.log(
    `preview proxy against direct connections inside the workspace, one client interleaving both (median of 3 rounds; load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after, on ${availableParallelism()} cores):`,
  );
  const rows: [string, (f: Figures) => number, "ms" | "req/s", boolean][] = [
    ["request latency p50", (f) => f.latency.p50, "ms", true],
    ["request latency p99", (f) => f.latency.p99, "ms", true],
    ["throughput, 16 conns", (f) => f.throughput, "req/s", false],
    ["hot-reload message p50", (f) => f.ws.p50, "ms", true],
    ["hot-reload message p99", (f) => f.ws.p99, "ms", true],
  ];
  const missed: string[] = [];
  const belowFloor: string[] = [];
  for (const [name, pick, unit, targeted] of rows) {
    const d = mid("direct", pick);
    const p = mid("proxy", pick);
    const f = mid("floor", pick);
    // A ratio above 1 is always the worse: slower for latency, fewer requests for throughput.
    const of = (x: number) => (unit === "ms" ? x / d : d / x);
    if (targeted && of(p) > TARGET_RATIO) missed.push(name);
    if (targeted && of(f) > TARGET_RATIO) belowFloor.push(name);
    const fmt = (x: number) => (unit === "ms" ? x.toFixed(3) : x.toFixed(0));
    const mark = targeted ? (of(p) > TARGET_RATIO ? " over" : "     ") : "     ";
    console.log(
      `  ${name.padEnd(24)} direct ${fmt(d).padStart(8)} ${unit.padEnd(5)} proxy ${fmt(p).padStart(8)} ${of(p).toFixed(2).padStart(5)}x${mark}  bare relay ${fmt(f).padStart(8)} ${of(f).toFixed(2).padStart(5)}x`,
    );
  }
  console.log(
    `  server CPU per request     proxy ${mid("proxy", (f) => f.cpu).toFixed(0)} µs, bare relay ${mid("floor", (f) => f.cpu).toFixed(0)} µs`,
  );
  console.log(
    missed.length
      ? `target (the proxy at most ${TARGET_RATIO}x direct at p50 and p99) missed: ${missed.join(", ")}`
      : `target (the proxy at most ${TARGET_RATIO}x direct at p50 and p99): met`,
  );
  if (belowFloor.length)
    console.log(`  below what a bare relay in the path reaches in this run: ${belowFloor.join(", ")}`);

  proxy.close();
  floor.close();
  dev.kill();
  await launched.close();
  await networks.close();
  rmSync(base, { recursive: true, force: true });
}

await main();
