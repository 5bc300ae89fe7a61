// The preview proxy's cost, against its reference in the same run. Run with `npm run bench:preview`.
// A dev server (plain node: a 4 KiB page and a hot-reload WebSocket that answers each message)
// runs in a workspace's network, in bubblewrap, as the agent's or a terminal's would. One client
// process, at the sandbox's niceness, with one http client and the same keep-alive and
// concurrency on every leg, sends the same requests five ways, interleaved: direct (connections
// made inside the workspace's network to 127.0.0.1:5173, handed to it as the holder hands them
// to the proxy), through the preview server (server/preview, as preview-listener.ts wires it: the
// native front before Node's http server, the session cookie, the access check, the connections
// into the workspace, the header rewriting; the first request of a connection is admitted by JS,
// the rest are the front's), through
// Node's own http server and client with no checks (the floor of any proxy that reads HTTP in
// Node), through a bare Node relay in the server's process onto the same kind of connection (a
// net.Socket pipe: one more trip through loopback and an event loop, near 2x of a ~60 µs request
// here), and through the native relay (server/preview/socket-relay.ts: a thread of the server's
// native module, what carries a WebSocket past its handshake; its one more trip through loopback
// wakes no event loop). Request latency p50 and p99 (one keep-alive connection, one request at a
// time), throughput (16 connections), the WebSocket's message round trip p50 and p99, and the
// server's CPU time per request. Target: the proxy at most 1.5x direct at p50 and p99; it prints
// which it missed, and which rows no relay of that kind reaches in this run (the bare Node relay
// for HTTP, the native relay for WebSocket messages). Figures only: nothing here fails a build.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_LIMITS } from "@/lib/sandbox-limits";
import { createPreviewAccess, spendInMemory } from "@/server/preview/preview-access";
import { PREVIEW_COOKIE } from "@/server/preview/preview-headers";
import { previewFront } from "@/server/preview/preview-front";
import { createPreviewHandlers } from "@/server/preview/preview-server";
import { relaySockets } from "@/server/preview/socket-relay";
import { canSwitchIdentity } from "@/server/sandbox/identity";
import { bwrapAvailable, defaultSandboxHost } from "@/server/sandbox/launcher";
import { createSandbox } from "@/server/sandbox/sandbox";
import { copyVite } from "../e2e/vite-app";

const TARGET_RATIO = 1.5;
const PORT = 5173;
const VITE_PORT = 5174;

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
// connections by the bench (over IPC, as the holder hands them to the proxy). argv: proxyPort and
// the targets (JSON: each dev server's port, its preview Host, session cookie, floor port and the
// paths asked of it). Legs are interleaved request by request (message by message; in 250 ms
// slices for throughput), so a burst of load elsewhere falls on all of them alike.
const CLIENT = `const http = require("http");
const net = require("net");
const [proxyPort, targetsJson] = process.argv.slice(2);
const targets = JSON.parse(targetsJson);
const LEGS = ["direct", "proxy", "node", "floor", "native"];
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };
const waiting = new Map();
const spare = new Map();
const queue = (map, port) => { if (!map.has(port)) map.set(port, []); return map.get(port); };
process.on("message", (m, socket) => { if (socket) { const w = queue(waiting, m.port).shift(); w ? w(socket) : queue(spare, m.port).push(socket); } });
const direct = (port) => new Promise((resolve) => { const s = queue(spare, port).shift(); if (s) return resolve(s); queue(waiting, port).push(resolve); process.send({ want: port }); });
// Each leg gets its connections its own way; everything above the socket is the same http client.
function connection(leg, target, made) {
  if (leg === "direct") return void direct(target.port).then((s) => made(null, s.setNoDelay(true)));
  const port = leg === "proxy" ? proxyPort : leg === "node" ? target.nodePort : leg === "native" ? target.nativePort : target.floorPort;
  const s = net.connect(Number(port), "127.0.0.1");
  s.setNoDelay(true);
  s.once("connect", () => made(null, s)).once("error", made);
}
function agentOf(leg, target, sockets) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  agent.createConnection = (_o, made) => { connection(leg, target, made); return undefined; };
  return agent;
}
// The dev server sees the Host the proxy sends it (localhost:port); the proxy and relays get the preview's.
const headersOf = (leg, target) => ({ host: leg === "direct" ? "localhost:" + target.port : target.host, cookie: target.cookie });
const get = (leg, target, agent, path) => new Promise((resolve, reject) => {
  http.get({ host: "127.0.0.1", path, headers: headersOf(leg, target), agent }, (res) => {
    if (res.statusCode !== 200) reject(new Error(leg + " " + path + ": HTTP " + res.statusCode));
    res.resume(); res.on("end", resolve);
  }).on("error", reject);
});
const time = async (f) => { const t = process.hrtime.bigint(); await f(); return Number(process.hrtime.bigint() - t) / 1e6; };
const summary = (times) => ({ p50: pct(times, 0.5), p99: pct(times, 0.99) });
const perLeg = (f) => Object.fromEntries(LEGS.map((leg) => [leg, f(leg)]));
async function latency(target, n) {
  const agents = perLeg((leg) => agentOf(leg, target, 1));
  const times = perLeg(() => []);
  const path = (i) => target.paths[i % target.paths.length];
  for (let i = 0; i < 200; i++) for (const leg of LEGS) await get(leg, target, agents[leg], path(i));
  for (let i = 0; i < n; i++)
    for (let j = 0; j < LEGS.length; j++) { const leg = LEGS[(i + j) % LEGS.length]; times[leg].push(await time(() => get(leg, target, agents[leg], path(i)))); }
  for (const agent of Object.values(agents)) agent.destroy();
  return perLeg((leg) => summary(times[leg]));
}
async function throughput(target, connections, slices, ms) {
  const done = perLeg(() => 0);
  const agents = perLeg((leg) => agentOf(leg, target, connections));
  for (let i = 0; i < slices; i++)
    for (const leg of LEGS) {
      const end = Date.now() + ms;
      await Promise.all(Array.from({ length: connections }, async (_, c) => { for (let k = c; Date.now() < end; k += connections) { await get(leg, target, agents[leg], target.paths[k % target.paths.length]); done[leg]++; } }));
    }
  for (const agent of Object.values(agents)) agent.destroy();
  return perLeg((leg) => done[leg] / ((slices * ms) / 1000));
}
const upgrade = (leg, target) => new Promise((resolve, reject) => {
  const headers = headersOf(leg, target);
  const req = http.request({ host: "127.0.0.1", path: "/hmr", agent: agentOf(leg, target, 1), headers: { ...headers, origin: "http://" + headers.host, connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" } });
  req.on("upgrade", (_res, s) => { s.setNoDelay(true); resolve(s); });
  req.on("response", (res) => reject(new Error(leg + ": no upgrade: HTTP " + res.statusCode)));
  req.on("error", reject);
  req.end();
});
// Node's bare http server takes no WebSocket: its leg has no messages.
const SOCKET_LEGS = LEGS.filter((leg) => leg !== "node");
async function messages(target, n) {
  const sockets = {};
  for (const leg of SOCKET_LEGS) sockets[leg] = await upgrade(leg, target);
  const frame = Buffer.from([0x81, 0x80 | 4, 1, 2, 3, 4, 0x70 ^ 1, 0x69 ^ 2, 0x6e ^ 3, 0x67 ^ 4]);
  const roundTrip = (s) => time(() => new Promise((resolve) => { s.once("data", resolve); s.write(frame); }));
  const times = perLeg(() => []);
  for (let i = 0; i < 100; i++) for (const leg of SOCKET_LEGS) await roundTrip(sockets[leg]);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < SOCKET_LEGS.length; j++) { const leg = SOCKET_LEGS[(i + j) % SOCKET_LEGS.length]; times[leg].push(await roundTrip(sockets[leg])); }
  for (const s of Object.values(sockets)) s.destroy();
  return perLeg((leg) => (times[leg].length ? summary(times[leg]) : { p50: null, p99: null }));
}
// The server's CPU per request: a run of one leg alone, the bench reading its own CPU time around it.
const ask = (what) => new Promise((resolve) => { process.once("message", resolve); process.send({ cpu: what }); });
async function cpu(leg, target, n) {
  const agent = agentOf(leg, target, 1);
  for (let i = 0; i < 100; i++) await get(leg, target, agent, target.paths[0]);
  await ask("start");
  for (let i = 0; i < n; i++) await get(leg, target, agent, target.paths[0]);
  const { micros } = await ask("stop");
  agent.destroy();
  return micros / n;
}
(async () => {
  const [plain, vite] = targets;
  const l = await latency(plain, 2000);
  const t = await throughput(plain, 16, 4, 250);
  const w = await messages(plain, 1000);
  const c = { proxy: await cpu("proxy", plain, 2000), node: await cpu("node", plain, 2000), floor: await cpu("floor", plain, 2000), native: await cpu("native", plain, 2000) };
  const vl = await latency(vite, 1000);
  const vt = await throughput(vite, 16, 4, 250);
  process.send({ figures: perLeg((leg) => ({ latency: l[leg], throughput: t[leg], ws: w[leg], cpu: c[leg] ?? 0, vite: { latency: vl[leg], throughput: vt[leg] } })) });
  process.disconnect();
})().catch((e) => { console.error(e); process.exit(1); });
`;

type Leg = "direct" | "proxy" | "node" | "floor" | "native";
type Percentiles = { p50: number; p99: number };
type Figures = {
  latency: Percentiles;
  throughput: number;
  ws: Percentiles;
  cpu: number;
  vite: { latency: Percentiles; throughput: number };
};

/** A Vite app with a few modules: what the browser asks of it on a page load is what the bench asks. */
const VITE_APP = {
  "vite.config.js": `export default { server: { port: ${VITE_PORT}, strictPort: true, host: "127.0.0.1" } };\n`,
  "index.html": `<!doctype html><html><head><title>Bench</title></head><body><ul id="app"></ul><script type="module" src="/main.js"></script></body></html>\n`,
  "main.js": `import { items } from "./items.js";\nimport { render } from "./render.js";\nrender(document.getElementById("app"), items);\n`,
  "items.js": `export const items = ${JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ id: i, name: `item ${i}` })))};\n`,
  "render.js": `export function render(list, items) {\n  for (const item of items) {\n    const li = document.createElement("li");\n    li.textContent = item.name;\n    list.append(li);\n  }\n}\n`,
};
const VITE_PATHS = ["/", "/@vite/client", "/main.js", "/items.js", "/render.js"];

async function main() {
  if (!(await bwrapAvailable()) || !canSwitchIdentity()) {
    console.log("workspace networks need bubblewrap and root: nothing to measure.");
    return;
  }
  const base = mkdtempSync(path.join(tmpdir(), "tandem-bench-preview-"));
  const workspace = path.join(base, "ws");
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, "dev.js"), DEV_SERVER);
  for (const [name, text] of Object.entries(VITE_APP)) writeFileSync(path.join(workspace, name), text);
  await copyVite(workspace);
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
  /** Starts a dev server in the workspace's network, as a terminal would; resolves once it prints `ready`. */
  const start = async (command: string[], ready: RegExp) => {
    const launched = await sandbox.launch({
      workspaceRoot: workspace,
      command,
      newSession: true,
      projectId,
      source: { kind: "terminal", id: "bench" },
    });
    const c = launched.command;
    const child = spawn(c.file, c.args, { env: c.env as NodeJS.ProcessEnv, cwd: c.cwd, uid: c.uid, gid: c.gid });
    let output = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => {
        output += chunk;
        if (ready.test(output)) resolve();
      });
      child.once("exit", (code) => reject(new Error(`${command.join(" ")} exited (${code}): ${output}`)));
    });
    return { child, launched };
  };
  const devs = [
    await start(["node", "dev.js"], /listening/),
    await start(["node", "node_modules/vite/bin/vite.js"], /Local:|ready in/),
  ];

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
  const nodeServer = http.createServer((req, res) => void handlers.request(req, res));
  nodeServer.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head));
  const front = previewFront(nodeServer, handlers.admitFront);
  if (!front.native) throw new Error("the native front is not built (node scripts/build-native.mjs)");
  const proxy = front.server;
  // The floor: the same hop with no HTTP in it, a bare relay in this process onto the same kind of connection.
  const floorTo = (port: number) =>
    net.createServer((client) => {
      client.setNoDelay(true);
      networks.connect(workspace, port).then(
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
  // The same hop relayed by the native module, as the proxy relays a WebSocket after its handshake.
  const nativeTo = (port: number) =>
    net.createServer((client) => {
      client.setNoDelay(true);
      client.pause();
      networks.connect(workspace, port).then(
        (upstream) => {
          upstream.setNoDelay(true);
          upstream.pause();
          if (client.destroyed) return void upstream.destroy();
          const relay = relaySockets(
            client,
            upstream,
            { toClient: Buffer.alloc(0), toUpstream: Buffer.alloc(0) },
            () => {},
          );
          if (!relay.native) throw new Error("the native relay is not built (node scripts/build-native.mjs)");
        },
        () => client.destroy(),
      );
    });
  // The floor of any proxy that reads HTTP in Node: Node's own server and client onto the same
  // kind of connection, kept alive, with no admission, no header rewriting and no checks at all.
  const nodeProxyTo = (port: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    agent.createConnection = ((_options: unknown, made: (error: Error | null, socket?: net.Socket) => void) => {
      networks.connect(workspace, port).then((socket) => made(null, socket.setNoDelay(true)), made);
      return undefined;
    }) as unknown as http.Agent["createConnection"];
    return http.createServer((req, res) => {
      const headers = { ...req.headers, host: `localhost:${port}` };
      http
        .request({ method: req.method, path: req.url, headers, agent }, (answer) => {
          res.writeHead(answer.statusCode!, answer.rawHeaders);
          answer.pipe(res);
        })
        .on("error", () => res.destroy())
        .end();
    });
  };
  const listen = async (server: net.Server) => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as net.AddressInfo).port;
  };
  const floors = [floorTo(PORT), floorTo(VITE_PORT)];
  const nodeProxies = [nodeProxyTo(PORT), nodeProxyTo(VITE_PORT)];
  const natives = [nativeTo(PORT), nativeTo(VITE_PORT)];
  const proxyPort = await listen(proxy);
  const target = async (
    port: number,
    floor: net.Server,
    nodeProxy: net.Server,
    native: net.Server,
    paths: string[],
  ) => {
    const session = access.redeem(
      access.entryToken(projectId, port, "bench", { loginSessionId: "bench" }),
      projectId,
      port,
    )!;
    return {
      port,
      host: `${port}-${projectId}.localhost:${proxyPort}`,
      cookie: `${PREVIEW_COOKIE}=${session.cookie}`,
      floorPort: await listen(floor),
      nodePort: await listen(nodeProxy),
      nativePort: await listen(native),
      paths,
    };
  };
  const targets = [
    await target(PORT, floors[0]!, nodeProxies[0]!, natives[0]!, ["/"]),
    await target(VITE_PORT, floors[1]!, nodeProxies[1]!, natives[1]!, VITE_PATHS),
  ];

  async function round(): Promise<Record<Leg, Figures>> {
    const client = spawn(
      "/usr/bin/nice",
      ["-n", String(DEFAULT_LIMITS.nice), process.execPath, clientScript, String(proxyPort), JSON.stringify(targets)],
      { stdio: ["ignore", "inherit", "inherit", "ipc"] },
    );
    let cpuFrom = process.cpuUsage();
    return new Promise((resolve, reject) => {
      client.on("message", (message: { want?: number; cpu?: string; figures?: Record<Leg, Figures> }) => {
        const port = message.want;
        if (port) void networks!.connect(workspace, port).then((socket) => client.send({ port }, socket), reject);
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
    `preview proxy against direct connections inside the workspace, one client interleaving every leg (median of 3 rounds; load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after, on ${availableParallelism()} cores):`,
  );
  console.log(
    `  ${"".padEnd(28)} ${"direct".padStart(13)} ${"preview proxy".padStart(14)}      ${"Node's http alone".padStart(17)}  ${"bare relay".padStart(14)}  ${"native relay".padStart(14)}`,
  );
  // Each row's relay floor: a request passes through HTTP in Node, a WebSocket's messages through the native relay.
  const rows: [string, (f: Figures) => number, "ms" | "req/s", boolean, "floor" | "native"][] = [
    ["Vite: a page's requests p50", (f) => f.vite.latency.p50, "ms", true, "floor"],
    ["Vite: a page's requests p99", (f) => f.vite.latency.p99, "ms", true, "floor"],
    ["Vite: throughput, 16 conns", (f) => f.vite.throughput, "req/s", false, "floor"],
    ["4 KiB page: request p50", (f) => f.latency.p50, "ms", true, "floor"],
    ["4 KiB page: request p99", (f) => f.latency.p99, "ms", true, "floor"],
    ["4 KiB page: throughput", (f) => f.throughput, "req/s", false, "floor"],
    ["hot-reload message p50", (f) => f.ws.p50, "ms", true, "native"],
    ["hot-reload message p99", (f) => f.ws.p99, "ms", true, "native"],
  ];
  const missed: string[] = [];
  const belowFloor: string[] = [];
  const belowNode: string[] = [];
  for (const [name, pick, unit, targeted, floor] of rows) {
    const d = mid("direct", pick);
    // A ratio above 1 is always the worse: slower for latency, fewer requests for throughput.
    const of = (leg: Leg) => (unit === "ms" ? mid(leg, pick) / d : d / mid(leg, pick));
    // A miss is told with what else misses it in this run: the relay of its kind, or Node's own HTTP.
    const miss = targeted && of("proxy") > TARGET_RATIO;
    if (miss) missed.push(name);
    if (miss && of(floor) > TARGET_RATIO) belowFloor.push(name);
    else if (miss && floor === "floor" && of("node") > TARGET_RATIO) belowNode.push(name);
    const fmt = (x: number) => (unit === "ms" ? x.toFixed(3) : x.toFixed(0));
    const column = (leg: Leg) =>
      // A leg without a figure (Node's bare server takes no WebSocket) comes through IPC as null.
      typeof mid(leg, pick) !== "number"
        ? "      —       "
        : `${fmt(mid(leg, pick)).padStart(7)} ${of(leg).toFixed(2).padStart(5)}x`;
    const mark = targeted && of("proxy") > TARGET_RATIO ? " over" : "     ";
    console.log(
      `  ${name.padEnd(28)} ${fmt(d).padStart(7)} ${unit.padEnd(5)} ${column("proxy")}${mark} ${column("node")}  ${column("floor")}  ${column("native")}`,
    );
  }
  console.log(
    `  server CPU per 4 KiB page: proxy ${mid("proxy", (f) => f.cpu).toFixed(0)} µs, Node's http alone ${mid("node", (f) => f.cpu).toFixed(0)} µs, bare relay ${mid("floor", (f) => f.cpu).toFixed(0)} µs, native relay ${mid("native", (f) => f.cpu).toFixed(0)} µs`,
  );
  console.log(
    missed.length
      ? `target (the proxy at most ${TARGET_RATIO}x direct at p50 and p99) missed: ${missed.join(", ")}`
      : `target (the proxy at most ${TARGET_RATIO}x direct at p50 and p99): met`,
  );
  if (belowFloor.length)
    console.log(
      `  beyond what a relay in the path reaches in this run (Node's for HTTP, the native one for WebSocket messages): ${belowFloor.join(", ")}`,
    );
  if (belowNode.length)
    console.log(
      `  beyond what Node's own HTTP server and client reach with no checks, in this run: ${belowNode.join(", ")}`,
    );

  front.closeAll();
  proxy.close();
  for (const server of [...floors, ...nodeProxies, ...natives]) server.close();
  for (const dev of devs) {
    dev.child.kill();
    await dev.launched.close();
  }
  await networks.close();
  rmSync(base, { recursive: true, force: true });
}

await main();
