import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkPolicy } from "@/lib/egress-policy";
import { fdRelay, socketFd } from "./fd-relay";
import { openEgressListener, type EgressConnection, type EgressListener } from "./egress-proxy";
import { bwrapAvailable, type SandboxHost } from "./launcher";
import { createSandbox, type LoggedConnection, type Sandbox } from "./sandbox";

// The egress proxy against real local HTTP servers: one whose name is on the list, one whose
// name is not. Test names resolve through a test-only map (what TANDEM_EGRESS_TEST_HOSTS sets).

let allowedServer: http.Server;
let deniedServer: http.Server;
let allowedPort: number;
let deniedPort: number;
let denialsSeenByServer = 0;
let dir: string;

const listen = (server: http.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port)),
  );

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "tandem-egress-"));
  allowedServer = http.createServer((req, res) => res.end(`allowed server: ${req.method} ${req.url}`));
  deniedServer = http.createServer((_req, res) => {
    denialsSeenByServer++;
    res.end("denied server reached");
  });
  allowedPort = await listen(allowedServer);
  deniedPort = await listen(deniedServer);
});

afterAll(() => {
  allowedServer.close();
  deniedServer.close();
  rmSync(dir, { recursive: true, force: true });
});

const testHosts = new Map([
  ["registry.test", "127.0.0.1"],
  ["blocked.test", "127.0.0.1"],
]);

/** Sends one raw request to the proxy and returns the status line and body. */
function raw(proxy: Proxy, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(proxy);
    let data = "";
    socket.on("data", (c) => {
      data += c.toString();
      // A CONNECT that succeeded leaves the tunnel open: the status line is all we need.
      if (/^HTTP\/1\.1 200 Connection Established/.test(data)) socket.destroy();
    });
    socket.on("close", () => resolve(data));
    socket.on("error", () => resolve(data));
    socket.write(request);
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}

type Proxy = { host: string; port: number };

/**
 * Does what a sandbox's bridge does (bridge-script.ts): listens on loopback, hands the listening
 * socket to the egress listener over its Unix socket, and closes its own copy. Here the listener
 * is in the test's own network namespace; the sandbox tests below go through the real bridge.
 */
async function handOver(
  socketPath: string,
  send: (channel: net.Socket, server: net.Server) => void = (channel, server) =>
    fdRelay()!.sendFd(socketFd(channel), socketFd(server)),
): Promise<Proxy> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const channel = net.connect(socketPath);
  await new Promise((resolve) => channel.once("connect", resolve));
  send(channel, server);
  server.close();
  channel.destroy();
  return { host: "127.0.0.1", port };
}

async function listener(
  policy: NetworkPolicy,
  extra: { onlyHosts?: string[]; resolve?: (host: string) => Promise<{ address: string; family: number }[]> } = {},
) {
  const log: EgressConnection[] = [];
  const egress = openEgressListener({
    socketPath: path.join(dir, `${Math.random().toString(36).slice(2)}.sock`),
    policy: async () => policy,
    testHosts,
    record: (c) => log.push(c),
    ...extra,
  });
  return { egress, log, proxy: await handOver(egress.socketPath) };
}

describe("egress proxy", () => {
  let open: EgressListener[] = [];
  afterAll(async () => {
    await Promise.all(open.map((l) => l.close()));
    open = [];
  });

  it("forwards plain HTTP and CONNECT to hosts on the list, and records each connection with its bytes", async () => {
    const { egress, log, proxy } = await listener({ policy: "allow-list", allowHosts: ["registry.test"] });
    open.push(egress);
    const response = await raw(
      proxy,
      `GET http://registry.test:${allowedPort}/pkg HTTP/1.1\r\nHost: registry.test:${allowedPort}\r\nConnection: close\r\n\r\n`,
    );
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toContain("allowed server: GET /pkg");
    const tunnel = await raw(
      proxy,
      `CONNECT registry.test:${allowedPort} HTTP/1.1\r\nHost: registry.test:${allowedPort}\r\n\r\n`,
    );
    expect(tunnel).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    await new Promise((r) => setTimeout(r, 100));
    expect(log).toHaveLength(2);
    expect(log[0]).toMatchObject({ host: "registry.test", port: allowedPort, allowed: true });
    expect(log[0]!.bytesIn).toBeGreaterThan(0);
    expect(log[0]!.bytesOut).toBeGreaterThan(0);
    expect(egress.denials()).toEqual([]);
  });

  it("forwards one request per client connection: a second one on it, to a host not on the list, reaches no server", async () => {
    const { egress, log, proxy } = await listener({ policy: "allow-list", allowHosts: ["registry.test"] });
    open.push(egress);
    const seen: string[] = [];
    const origin = http.createServer((req, res) => {
      seen.push(`${req.headers.host} ${req.url}`);
      res.end("first answer");
    });
    const port = await listen(origin);
    const before = denialsSeenByServer;
    const first = `GET http://registry.test:${port}/first HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\n`;
    const second = `GET http://blocked.test:${deniedPort}/second HTTP/1.1\r\nHost: blocked.test:${deniedPort}\r\n\r\n`;
    try {
      // Pipelined: both requests in one write, before any answer.
      const pipelined = await raw(proxy, first + second);
      // Keep-alive: the second request once the first answer is in.
      const sequential = await new Promise<string>((resolve) => {
        const socket = net.connect(proxy);
        let data = "";
        socket.on("data", (c) => {
          if (!data) setTimeout(() => socket.write(second, () => {}), 100);
          data += c.toString();
        });
        socket.on("error", () => {});
        socket.on("close", () => resolve(data));
        socket.write(first);
        setTimeout(() => socket.destroy(), 5_000).unref();
      });
      for (const response of [pipelined, sequential]) {
        expect(response).toMatch(/^HTTP\/1\.1 200/);
        expect(response).toMatch(/^connection: close\r$/im);
        expect(response.match(/HTTP\/1\.1 \d+/g)).toHaveLength(1);
      }
      expect(seen).toEqual([`registry.test:${port} /first`, `registry.test:${port} /first`]);
      expect(denialsSeenByServer).toBe(before);
      expect(log.map((c) => [c.host, c.allowed])).toEqual([
        ["registry.test", true],
        ["registry.test", true],
      ]);
    } finally {
      origin.close();
    }
  });

  it("plain HTTP: a Host header naming another virtual host than the allowed URL's is refused with 400, and no server sees it", async () => {
    const { egress, log, proxy } = await listener({ policy: "allow-list", allowHosts: ["registry.test"] });
    open.push(egress);
    const seen: string[] = [];
    const origin = http.createServer((req, res) => {
      seen.push(String(req.headers.host));
      res.end(`virtual host ${req.headers.host}`);
    });
    const port = await listen(origin);
    try {
      const url = `http://registry.test:${port}/admin`;
      const forged = [
        `Host: internal-admin.test\r\n`,
        `Host: blocked.test:${port}\r\n`,
        `Host: registry.test:${port + 1}\r\n`,
        `Host: registry.test:${port}\r\nHost: internal-admin.test\r\n`,
        `Host: registry.test:${port}/x\r\n`,
        `Host: \r\n`,
      ];
      for (const headers of forged) {
        const response = await raw(proxy, `GET ${url} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);
        expect({ headers, response }).toMatchObject({
          headers,
          response: expect.stringMatching(/^HTTP\/1\.1 400[\s\S]*does not match its URL's host/),
        });
      }
      expect(seen).toEqual([]);
      expect(log.every((c) => !c.allowed)).toBe(true);
      expect(egress.denials()).toEqual([]);
      // The URL's own host, however it is spelled, and no Host at all, reach the origin as that host.
      expect(
        await raw(proxy, `GET ${url} HTTP/1.1\r\nHost: REGISTRY.test:${port}\r\nConnection: close\r\n\r\n`),
      ).toMatch(/^HTTP\/1\.1 200[\s\S]*virtual host registry\.test:/);
      expect(
        await raw(proxy, `GET http://registry.test/ HTTP/1.1\r\nHost: registry.test:80\r\nConnection: close\r\n\r\n`),
      ).not.toMatch(/^HTTP\/1\.1 400/);
      expect(await raw(proxy, `GET ${url} HTTP/1.0\r\n\r\n`)).toMatch(
        /^HTTP\/1\.1 200[\s\S]*virtual host registry\.test:/,
      );
      expect(seen).toEqual([`registry.test:${port}`, `registry.test:${port}`]);
    } finally {
      origin.close();
    }
  });

  it("sends the origin the request it expects: origin-form target, no Proxy-* or hop-by-hop headers, a chunked body intact", async () => {
    const { egress, proxy } = await listener({ policy: "allow-list", allowHosts: ["registry.test"] });
    open.push(egress);
    const origin = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      res.end(
        JSON.stringify({
          line: `${req.method} ${req.url} HTTP/${req.httpVersion}`,
          headers: req.rawHeaders,
          body: createHash("sha256").update(Buffer.concat(chunks)).digest("hex"),
        }),
      );
    });
    const port = await listen(origin);
    try {
      const body = randomBytes(300_000);
      const answer = await new Promise<string>((resolve, reject) => {
        const request = http.request(
          {
            ...proxy,
            method: "POST",
            path: `http://registry.test:${port}/upload?x=1`,
            headers: {
              host: `registry.test:${port}`,
              "proxy-authorization": "Basic c2VjcmV0",
              "proxy-connection": "keep-alive",
              "x-drop": "1",
              connection: "x-drop",
              "X-Kept": "yes",
            },
          },
          (response) => {
            let text = "";
            response.on("data", (c) => (text += c));
            response.on("end", () => resolve(text));
          },
        );
        request.on("error", reject);
        // Several writes without a length: node sends them chunked.
        for (let i = 0; i < body.length; i += 100_000) request.write(body.subarray(i, i + 100_000));
        request.end();
      });
      const seen = JSON.parse(answer) as { line: string; headers: string[]; body: string };
      expect(seen.line).toBe("POST /upload?x=1 HTTP/1.1");
      const names = seen.headers.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
      expect(names).not.toContain("proxy-authorization");
      expect(names).not.toContain("proxy-connection");
      expect(names).not.toContain("x-drop");
      expect(seen.headers).toContain("X-Kept");
      expect(seen.headers.join("\n").toLowerCase()).toContain(`host\nregistry.test:${port}`);
      expect(seen.body).toBe(createHash("sha256").update(body).digest("hex"));
    } finally {
      origin.close();
    }
  });

  it("asks the origin in an HTTP/1.0 client's own version, so the answer comes without chunks it could not read", async () => {
    const { egress, proxy } = await listener({ policy: "allow-list", allowHosts: ["registry.test"] });
    open.push(egress);
    const origin = http.createServer((req, res) => {
      // Two writes without a length: chunked to an HTTP/1.1 client, plain bytes to an HTTP/1.0 one.
      res.write(`version ${req.httpVersion}, `);
      res.end("second part");
    });
    const port = await listen(origin);
    try {
      const response = await raw(
        proxy,
        `GET http://registry.test:${port}/ HTTP/1.0\r\nHost: registry.test:${port}\r\n\r\n`,
      );
      expect(response).toMatch(/^HTTP\/1\.1 200/);
      expect(response).not.toMatch(/transfer-encoding/i);
      expect(response.split("\r\n\r\n")[1]).toBe("version 1.0, second part");
    } finally {
      origin.close();
    }
  });

  it("answers 502 naming the host when an allowed host cannot be reached, plain and tunnelled", async () => {
    const { egress, proxy } = await listener({ policy: "allow-list", allowHosts: ["registry.test"] });
    open.push(egress);
    // A port that was free a moment ago: nothing listens there.
    const closed = http.createServer();
    const port = await listen(closed);
    await new Promise((r) => closed.close(r));
    const plain = await raw(proxy, `GET http://registry.test:${port}/ HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\n`);
    const tunnel = await raw(proxy, `CONNECT registry.test:${port} HTTP/1.1\r\n\r\n`);
    for (const response of [plain, tunnel]) {
      expect(response).toMatch(/^HTTP\/1\.1 502/);
      expect(response).toContain("could not reach registry.test");
    }
  });

  it("refuses hosts not on the list, says how to allow them, and never connects", async () => {
    const { egress, log, proxy } = await listener({
      policy: "allow-list",
      allowHosts: ["registry.test", "*.npmjs.org"],
    });
    open.push(egress);
    const before = denialsSeenByServer;
    const plain = await raw(proxy, `GET http://blocked.test:${deniedPort}/ HTTP/1.1\r\nHost: blocked.test\r\n\r\n`);
    const tunnel = await raw(proxy, `CONNECT blocked.test:${deniedPort} HTTP/1.1\r\n\r\n`);
    for (const r of [plain, tunnel]) {
      expect(r).toMatch(/^HTTP\/1\.1 403/);
      expect(r).toContain("blocked.test");
      expect(r).toContain("project settings (Network)");
    }
    expect(denialsSeenByServer).toBe(before);
    expect(egress.denials()).toEqual(["blocked.test"]);
    expect(log.map((c) => c.allowed)).toEqual([false, false]);
  });

  it("matches wildcards to subdomains only", async () => {
    const { egress, proxy } = await listener(
      { policy: "allow-list", allowHosts: ["*.npmjs.org"] },
      { resolve: async () => [{ address: "93.184.216.34", family: 4 }] },
    );
    open.push(egress);
    const apex = await raw(proxy, "CONNECT npmjs.org.evil.test:443 HTTP/1.1\r\n\r\n");
    expect(apex).toMatch(/^HTTP\/1\.1 403/);
    const suffix = await raw(proxy, "CONNECT evilnpmjs.org:443 HTTP/1.1\r\n\r\n");
    expect(suffix).toMatch(/^HTTP\/1\.1 403/);
    expect(egress.denials()).toEqual(["npmjs.org.evil.test", "evilnpmjs.org"]);
  });

  it("narrows the project's policy to onlyHosts (git to one remote)", async () => {
    const { egress, proxy } = await listener({ policy: "open", allowHosts: [] }, { onlyHosts: ["registry.test"] });
    open.push(egress);
    expect(await raw(proxy, `CONNECT registry.test:${allowedPort} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200/);
    expect(await raw(proxy, `CONNECT blocked.test:${deniedPort} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
  });

  it("refuses every loopback, private, link-local and metadata address form of the web_fetch tests, even with the open policy", async () => {
    const p = deniedPort;
    // Names that a hostile DNS answers with loopback; everything else resolves as usual.
    const resolve = async (host: string) =>
      ["rebind.example", "127.0.0.1.nip.io", "internal.example"].includes(host)
        ? [{ address: host === "internal.example" ? "10.0.0.1" : "127.0.0.1", family: 4 }]
        : lookup(host, { all: true, verbatim: true });
    const { egress, proxy } = await listener({ policy: "open", allowHosts: [] }, { resolve });
    open.push(egress);
    const before = denialsSeenByServer;
    const hosts = [
      `127.0.0.1:${p}`,
      `localhost:${p}`,
      `[::1]:${p}`,
      `2130706433:${p}`,
      `0177.0.0.1:${p}`,
      `0x7f.0.0.1:${p}`,
      `127.1:${p}`,
      `0.0.0.0:${p}`,
      `[::]:${p}`,
      `[::ffff:127.0.0.1]:${p}`,
      `[::ffff:7f00:1]:${p}`,
      `127.0.0.1.nip.io:${p}`,
      `rebind.example:${p}`,
      "10.0.0.1:80",
      "172.16.5.4:80",
      "192.168.0.1:80",
      "100.64.1.1:80",
      "169.254.169.254:80",
      "[fd00::1]:80",
      "[fe80::1]:80",
      "224.0.0.251:80",
      "internal.example:443",
    ];
    for (const host of hosts) {
      const plain = await raw(
        proxy,
        `GET http://${host}/latest/meta-data/ HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      const tunnel = await raw(proxy, `CONNECT ${host} HTTP/1.1\r\n\r\n`);
      expect(plain, `GET ${host}`).toMatch(/^HTTP\/1\.1 403/);
      expect(tunnel, `CONNECT ${host}`).toMatch(/^HTTP\/1\.1 403/);
    }
    expect(denialsSeenByServer).toBe(before);
  });

  it("gives nothing when the policy is off", async () => {
    const { egress, proxy } = await listener({ policy: "off", allowHosts: ["registry.test"] });
    open.push(egress);
    expect(await raw(proxy, `CONNECT registry.test:${allowedPort} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/);
  });

  it("takes nothing but a listening TCP socket from a sandbox, keeps none of what it refused, and takes one listener only", async () => {
    const descriptors = () => readdirSync("/proc/self/fd").length;
    const connected = net.connect({ host: "127.0.0.1", port: allowedPort });
    await new Promise((resolve) => connected.once("connect", resolve));
    const file = openSync(path.join(dir, "not-a-socket"), "w");
    for (const passed of [file, socketFd(connected)]) {
      const egress = openEgressListener({
        socketPath: path.join(dir, `${Math.random().toString(36).slice(2)}.sock`),
        policy: async () => ({ policy: "open", allowHosts: [] }),
        testHosts,
        record: () => {},
      });
      open.push(egress);
      const before = descriptors();
      await handOver(egress.socketPath, (channel) => fdRelay()!.sendFd(socketFd(channel), passed));
      // What it refused it closed: the count comes back to what it was (the server is this process).
      await expect.poll(descriptors).toBe(before);
    }
    // A second listener on the same egress socket is not served: the first one is the bridge's.
    const { egress, proxy } = await listener({ policy: "allow-list", allowHosts: ["registry.test"] });
    open.push(egress);
    // The listener closes this second channel unread, so the send may fail with EPIPE.
    const second = await handOver(egress.socketPath, (channel, server) => {
      try {
        fdRelay()!.sendFd(socketFd(channel), socketFd(server));
      } catch {}
    });
    expect(
      await raw(proxy, `GET http://registry.test:${allowedPort}/one HTTP/1.1\r\nHost: registry.test\r\n\r\n`),
    ).toContain("allowed server: GET /one");
    const unserved = await new Promise<string>((resolve) => {
      const socket = net.connect(second, () =>
        socket.write(`GET http://registry.test:${allowedPort}/two HTTP/1.1\r\nHost: registry.test\r\n\r\n`),
      );
      let data = "";
      socket.on("data", (c) => (data += c));
      socket.on("error", () => resolve(`error: ${data}`));
      socket.on("close", () => resolve(data));
      setTimeout(() => socket.destroy(), 500).unref();
    });
    expect(unserved).not.toContain("allowed server");
    connected.destroy();
    closeSync(file);
  });
});

// The whole path: a command in bubblewrap, its bridge, the socket, the proxy, a local server.
describe.runIf(await bwrapAvailable())("network from inside the sandbox", () => {
  const host: SandboxHost = { mode: "bwrap", masks: [], perProjectUid: false, limits: null };
  const policies = new Map<string, NetworkPolicy>();
  const logged: LoggedConnection[] = [];
  let sandbox: Sandbox;
  let workspace: string;

  beforeAll(() => {
    workspace = mkdtempSync(path.join(tmpdir(), "tandem-egress-ws-"));
    sandbox = createSandbox({
      host,
      policies: { get: async (id) => policies.get(id) ?? { policy: "off", allowHosts: [] } },
      testHosts,
      log: (c) => logged.push(c),
    });
  });
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  async function sh(projectId: string, script: string) {
    const launch = await sandbox.launch({
      workspaceRoot: workspace,
      command: ["/bin/bash", "-c", script],
      newSession: true,
      projectId,
      source: { kind: "terminal", id: "t1" },
    });
    const c = launch.command;
    const result = await new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(c.file, c.args, { env: c.env as NodeJS.ProcessEnv, cwd: c.cwd, timeout: 30_000 }, (_e, stdout, stderr) =>
        resolve({ stdout, stderr }),
      ),
    );
    const denials = launch.denials();
    await launch.close();
    return { ...result, denials };
  }

  it("reaches an allowed host with curl through HTTP_PROXY, plain and tunnelled, and is refused a host not on the list", async () => {
    policies.set("p1", { policy: "allow-list", allowHosts: ["registry.test"] });
    const { stdout, denials } = await sh(
      "p1",
      `curl -s http://registry.test:${allowedPort}/a; echo; curl -s -p http://registry.test:${allowedPort}/b; echo; curl -s -o /dev/null -w '%{http_code}\\n' http://blocked.test:${deniedPort}/; env | grep -c -i _proxy=`,
    );
    expect(stdout).toContain("allowed server: GET /a");
    expect(stdout).toContain("allowed server: GET /b");
    expect(stdout).toMatch(/^403$/m);
    expect(Number(stdout.trim().split("\n").pop())).toBeGreaterThanOrEqual(8);
    expect(denials).toEqual(["blocked.test"]);
    const mine = logged.filter((c) => c.projectId === "p1");
    expect(mine.map((c) => [c.host, c.allowed])).toEqual([
      ["registry.test", true],
      ["registry.test", true],
      ["blocked.test", false],
    ]);
    expect(mine[0]!.source).toEqual({ kind: "terminal", id: "t1" });
  });

  it("carries a large download intact, plain and tunnelled, while the reader is slower than the server, which hangs up after its last byte", async () => {
    const body = randomBytes(48 * 1024 * 1024);
    const big = http.createServer((_req, res) => {
      // The server hangs up right after its last byte, while most of the body is still queued in the proxy and the bridge.
      res.writeHead(200, { "content-length": String(body.length), connection: "close" });
      res.end(body);
    });
    const port = await listen(big);
    try {
      policies.set("p4", { policy: "allow-list", allowHosts: ["registry.test"] });
      const { stdout } = await sh(
        "p4",
        `curl -sS http://registry.test:${port}/ | (sleep 1; sha256sum); curl -sS -p http://registry.test:${port}/ | (sleep 1; sha256sum)`,
      );
      const expected = createHash("sha256").update(body).digest("hex");
      expect(
        stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => line.split(" ")[0]),
      ).toEqual([expected, expected]);
      const bytes = logged.filter((c) => c.projectId === "p4").map((c) => c.bytesIn);
      expect(bytes.every((n) => n >= body.length)).toBe(true);
    } finally {
      big.close();
    }
  }, 60_000);

  it("cannot reach the host's loopback directly, only through the proxy", async () => {
    policies.set("p2", { policy: "open", allowHosts: [] });
    const { stdout } = await sh(
      "p2",
      `curl -s --noproxy '*' -m 3 http://127.0.0.1:${deniedPort}/ || echo NO_ROUTE; curl -s --noproxy '' -o /dev/null -w '%{http_code}\\n' http://127.0.0.1:${deniedPort}/`,
    );
    expect(stdout).toContain("NO_ROUTE");
    expect(stdout).toMatch(/^403$/m);
    expect(stdout).not.toContain("denied server reached");
  });

  it("leaves nothing of Tandem's running beside the command once the network is set up", async () => {
    policies.set("p6", { policy: "allow-list", allowHosts: ["registry.test"] });
    const { stdout } = await sh(
      "p6",
      `for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done; curl -s http://registry.test:${allowedPort}/up`,
    );
    expect(stdout).toContain("allowed server: GET /up");
    // The listing has the command itself; bubblewrap's own line names the bridge, but no process runs it.
    expect(stdout).not.toMatch(/^\/run\/tandem\/node /m);
    expect(stdout).toMatch(/^\/bin\/bash -c /m);
  });

  it("cannot hand the server anything through the egress socket: the bridge's listener was the one it takes", async () => {
    policies.set("p5", { policy: "allow-list", allowHosts: ["registry.test"] });
    // The attacker uses what the sandbox has: the node binary and the native module the bridge runs on.
    const attack = `const net = require("net"); const relay = require("/run/tandem/fd_relay.node");
      const fs = require("fs"); const passed = fs.openSync("/etc/passwd", "r");
      const c = net.connect("/run/tandem/egress.sock", () => { try { relay.sendFd(c._handle.fd, passed); console.log("SENT"); } catch (e) { console.log("REFUSED " + e.message); } });
      c.on("close", () => console.log("CLOSED")); c.on("error", (e) => console.log("ERROR " + e.code));`;
    const { stdout } = await sh(
      "p5",
      `/run/tandem/node -e '${attack}'; curl -s http://registry.test:${allowedPort}/after`,
    );
    expect(stdout).toMatch(/CLOSED|ERROR/);
    // The network the bridge set up still works, and the server is unharmed.
    expect(stdout).toContain("allowed server: GET /after");
  });

  it("has no bridge, no proxy and no proxy variables when the policy is off", async () => {
    policies.set("p3", { policy: "off", allowHosts: [] });
    const { stdout } = await sh(
      "p3",
      `env | grep -i _proxy= || echo NO_PROXY_VARS; curl -s -m 3 http://registry.test:${allowedPort}/ || echo NO_NETWORK`,
    );
    expect(stdout).toContain("NO_PROXY_VARS");
    expect(stdout).toContain("NO_NETWORK");
  });
});
