import { randomUUID } from "node:crypto";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPreviewAccess, spendInMemory } from "./preview-access";
import { PREVIEW_COOKIE } from "./preview-headers";
import { withFrameScript } from "./frame-script";
import { frontedPreviews } from "./preview-front";
import { createPreviewHandlers, PREVIEW_ENTER_PATH } from "./preview-server";

// The preview proxy against a dev server that is hostile at the HTTP level: it writes raw bytes
// (a status or reason no server would send, headers that try to set the preview's own session
// cookie), on a real loopback socket. The proxy
// runs in the server's own process, so whatever such an answer does to it, it does to every
// person's IDE: it must end in a 502 or the answer passed on without the forbidden parts.

const SWITCH = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n";

/** What the hostile server writes for each path, raw. */
const ANSWERS: Record<string, string> = {
  "/status-099": "HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\nok",
  "/reason": "HTTP/1.1 200 O\x01K\r\nContent-Length: 2\r\n\r\nok",
  // A Set-Cookie after a bare LF, which browsers take for a line's end: Node's parser refuses it.
  "/bare-lf": `HTTP/1.1 200 OK\r\nX-Note: a\nSet-Cookie: ${PREVIEW_COOKIE}=after-lf\r\nContent-Length: 2\r\n\r\nok`,
  // For a CDN in front of the previews to keep and hand to anyone.
  "/cached":
    "HTTP/1.1 200 OK\r\nCache-Control: public, max-age=31536000\r\nCache-Control: s-maxage=600, immutable\r\nContent-Length: 2\r\n\r\nok",
  "/switch": "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
  // WebSocket handshakes that try to set the preview's session cookie: plainly, after a bare LF
  // (which browsers take for a line's end), and in a head ended by bare LFs.
  "/ws": `${SWITCH}Set-Cookie: ${PREVIEW_COOKIE}=from-socket\r\nSet-Cookie: socket=1; Domain=localhost\r\n\r\n`,
  "/ws-lf": `${SWITCH}X-Note: a\nSet-Cookie: ${PREVIEW_COOKIE}=from-socket\r\n\r\n`,
  "/ws-lf-end": `${SWITCH}Set-Cookie: ${PREVIEW_COOKIE}=from-socket\n\n`,
  "/huge-header": `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(100_000)}\r\nContent-Length: 2\r\n\r\nok`,
  "/cookies": [
    "HTTP/1.1 200 OK",
    `Set-Cookie: ${PREVIEW_COOKIE} =spaced; Path=/`,
    `Set-Cookie: \t${PREVIEW_COOKIE}\t=tabbed`,
    `Set-Cookie: ${PREVIEW_COOKIE}`,
    `Set-Cookie: =${PREVIEW_COOKIE}=nameless`,
    `Set-Cookie: ${PREVIEW_COOKIE}=plain; Domain=localhost`,
    "Set-Cookie: app=kept; Path=/",
    // Would sign the person out of every preview of the site (and an IDE under it).
    'Clear-Site-Data: "cookies"',
    // For the parent domain: the IDE's host when it is opened at localhost, and every other preview.
    "Set-Cookie: tossed=1; Domain=localhost; Path=/; domain =.localhost",
    "Content-Length: 2",
    "",
    "ok",
  ].join("\r\n"),
};

/**
 * Pages for the Preview panel's frame, in the pieces the app writes them in (50 ms apart, so each
 * is read on its own), and how it frames them: where the frame's script goes must not depend on
 * which path (Node's or the native front's) carried the page.
 */
const PAGES: { pieces: string[]; framing: "chunked" | "length" | "close" }[] = [
  { pieces: ["<!doctype html><html><he", "ad><title>t</title></head><body>x</body></html>"], framing: "chunked" },
  { pieces: ['<HTML LANG=en><HEAD\tdata-x="1"><TITLE>t</TITLE></HEAD><BODY>x</BODY></HTML>'], framing: "length" },
  { pieces: ["<!doctype html><html lang=en><body>no head</body></html>"], framing: "close" },
  { pieces: ["<!DOCTYPE html>\n<p>no head, no html</p>"], framing: "chunked" },
  { pieces: ["plain text, not html at all"], framing: "length" },
  { pieces: ["<!doctype html><header>not a head</header>", "<head", " id=x><title>t</title>"], framing: "chunked" },
  { pieces: [`<html><header>${"filler ".repeat(3000)}`, "<head><title>late</title></head>"], framing: "chunked" },
  { pieces: [""], framing: "length" },
];

/** An answer bigger than any buffer on the way, each byte telling its place. */
const BIG = Buffer.from(Array.from({ length: 8 * 1024 * 1024 }, (_, i) => (i * 7) % 251));

function hostileServer() {
  return net.createServer((socket) => {
    let head = "";
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk) => {
      head += chunk.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      const [line] = head.split("\r\n");
      head = head.slice(end + 4);
      const path = line!.split(" ")[1]!;
      const page = /^\/page\/(\d+)$/.exec(path);
      if (page) {
        const { pieces, framing } = PAGES[Number(page[1])]!;
        const length = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece, "latin1"), 0);
        const framingHeader = {
          chunked: "Transfer-Encoding: chunked",
          length: `Content-Length: ${length}`,
          close: "Connection: close",
        }[framing];
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: Text/HTML; charset=utf-8\r\nETag: "v1"\r\n${framingHeader}\r\n\r\n`,
        );
        const write = (i: number) => {
          if (i === pieces.length) {
            if (framing === "chunked") socket.write("0\r\n\r\n");
            if (framing === "close") socket.end();
            return;
          }
          const piece = Buffer.from(pieces[i]!, "latin1");
          if (framing === "chunked") {
            if (piece.length)
              socket.write(
                Buffer.concat([Buffer.from(`${piece.length.toString(16)};ext=1\r\n`), piece, Buffer.from("\r\n")]),
              );
          } else socket.write(piece);
          setTimeout(() => write(i + 1), 50);
        };
        return void write(0);
      }
      if (path === "/big") {
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${BIG.length}\r\n\r\n`);
        return void socket.write(BIG);
      }
      // Answers, then closes the connection without having said so: the next request needs another.
      if (path === "/then-close") return void socket.end("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbye.");
      socket.write(ANSWERS[path] ?? "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nalive");
    });
  });
}

/** The login session the entry links are made under (the gate, stood in for here, checks it lasts). */
const LOGIN = { loginSessionId: "login" };

describe("the preview proxy against a hostile dev server", () => {
  const projectId = randomUUID();
  const access = createPreviewAccess("hostile app test secret");
  let app: net.Server;
  let proxy: net.Server;
  let closeFront: (() => void) | undefined;
  let proxyPort: number;
  const host = () => `5173-${projectId}.localhost:${proxyPort}`;

  beforeAll(async () => {
    app = hostileServer();
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    const appPort = (app.address() as AddressInfo).port;
    const handlers = createPreviewHandlers({
      access,
      domain: "localhost",
      secure: false,
      spendEntry: spendInMemory(),
      admits: async (grant) => grant.userId === "member",
      link: async () => null,
      onAccessEnd: () => () => {},
      connect: () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(appPort, "127.0.0.1", () => resolve(socket));
          socket.once("error", reject);
        }),
    });
    const fronted = frontedPreviews(handlers);
    closeFront = () => fronted.front.closeAll();
    proxy = fronted.front.server;
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
  });

  afterAll(() => {
    closeFront?.();
    proxy?.close();
    app?.close();
  });

  const enter = async () => {
    const token = access.entryToken(projectId, 5173, "member", LOGIN);
    const answer = await request(`${PREVIEW_ENTER_PATH}?t=${encodeURIComponent(token)}`);
    return String(answer.headers["set-cookie"]).split(";")[0]!;
  };

  const request = (path: string, headers: Record<string, string> = {}, agent?: http.Agent) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port: proxyPort, path, headers: { host: host(), ...headers }, agent }, (res) => {
          let body = "";
          res.setEncoding("latin1").on("data", (c: string) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
          res.on("error", reject);
        })
        .on("error", reject);
    });

  it("puts the frame's script where Node's path puts it, in every page and however it comes, on one kept connection", async () => {
    const cookie = await enter();
    // One connection, as a browser's frame keeps it: the first request is admitted, the rest go the native way.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (const [i, { pieces }] of PAGES.entries()) {
      const expected = await new Promise<string>((resolve) => {
        let out = "";
        const script = withFrameScript();
        script.on("data", (chunk: Buffer) => (out += chunk.toString("latin1")));
        script.on("end", () => resolve(out));
        for (const piece of pieces) script.write(Buffer.from(piece, "latin1"));
        script.end();
      });
      const answer = await request(`/page/${i}`, { cookie, "sec-fetch-dest": "iframe" }, agent);
      expect(answer.body, `page ${i}`).toBe(expected);
      expect(answer.headers["content-length"], `page ${i}`).toBeUndefined();
      expect(answer.headers.etag, `page ${i}`).toBeUndefined();
      // Outside a frame, the page as the app wrote it.
      const plain = await request(`/page/${i}`, { cookie }, agent);
      expect(plain.body, `page ${i}`).toBe(pieces.join(""));
    }
    agent.destroy();
  });

  it("answers 502 to a status or reason phrase it cannot pass on, and a header past the limit, and keeps serving", async () => {
    const cookie = await enter();
    for (const path of ["/status-099", "/reason", "/huge-header", "/switch", "/bare-lf"]) {
      const answer = await request(path, { cookie });
      expect(answer.status, path).toBe(502);
    }
    // The proxy (the server's own process) is still there.
    expect((await request("/fine", { cookie })).body).toBe("alive");
  });

  it("passes a big answer to a slow reader whole and in order, and serves on after the app drops a kept connection", async () => {
    const cookie = await enter();
    const received = await new Promise<Buffer>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port: proxyPort, path: "/big", headers: { host: host(), cookie } }, (res) => {
          const chunks: Buffer[] = [];
          // A reader slower than the app writes: the proxy must hold back rather than drop or reorder.
          res.on("data", (chunk: Buffer) => {
            chunks.push(chunk);
            res.pause();
            setTimeout(() => res.resume(), 1);
          });
          res.on("end", () => resolve(Buffer.concat(chunks)));
          res.on("error", reject);
        })
        .on("error", reject);
    });
    expect(received.length).toBe(BIG.length);
    expect(received.equals(BIG)).toBe(true);
    expect((await request("/then-close", { cookie })).body).toBe("bye.");
    for (let i = 0; i < 5; i++) expect((await request("/fine", { cookie })).body).toBe("alive");
  });

  it("carries a body sent after 100 Continue", async () => {
    const cookie = await enter();
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: "127.0.0.1",
        port: proxyPort,
        method: "POST",
        path: "/fine",
        headers: { host: host(), cookie, expect: "100-continue", "content-length": "5" },
      });
      req.on("continue", () => req.end("hello"));
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
    });
    expect(status).toBe(200);
  });

  it("lets no shared cache keep an answer for someone without the preview's session", async () => {
    const cookie = await enter();
    expect((await request("/cached", { cookie })).headers["cache-control"]).toBe(
      "private, max-age=31536000, immutable",
    );
    expect((await request("/fine", { cookie })).headers["cache-control"]).toBe("private");
  });

  it("never passes on a Set-Cookie for the preview's own session, however its name is written, nor one for a parent domain", async () => {
    const cookie = await enter();
    const answer = await request("/cookies", { cookie });
    expect(answer.status).toBe(200);
    expect(answer.headers["set-cookie"]).toEqual(["app=kept; Path=/", "tossed=1; Path=/"]);
    expect(answer.headers["clear-site-data"]).toBeUndefined();
  });

  it("never passes on the preview's session cookie, nor a cookie's domain, in a WebSocket handshake's answer", async () => {
    const cookie = await enter();
    /** What a browser's connection gets back for a handshake, raw, until the proxy closes it or a second passes. */
    const handshake = (path: string) =>
      new Promise<string>((resolve) => {
        let got = "";
        const socket = net.connect(proxyPort, "127.0.0.1", () =>
          socket.write(
            [
              `GET ${path} HTTP/1.1`,
              `Host: ${host()}`,
              `Cookie: ${cookie}`,
              `Origin: http://${host()}`,
              "Upgrade: websocket",
              "Connection: Upgrade",
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
              "Sec-WebSocket-Version: 13",
              "",
              "",
            ].join("\r\n"),
          ),
        );
        const done = () => {
          socket.destroy();
          resolve(got);
        };
        socket.on("data", (chunk) => (got += chunk.toString("latin1")));
        socket.on("close", done);
        socket.on("error", done);
        setTimeout(done, 1_000);
      });
    const plain = await handshake("/ws");
    expect(plain).toMatch(/^HTTP\/1\.1 101 /);
    expect(plain).toContain("\r\nSet-Cookie: socket=1\r\n");
    for (const path of ["/ws", "/ws-lf", "/ws-lf-end"])
      expect(await handshake(path), path).not.toContain("from-socket");
  });
});
