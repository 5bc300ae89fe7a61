import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { until } from "@/server/test/until";
import { createPreviewAccess, spendInMemory } from "./preview-access";
import { FRAME_SCRIPT_PATH } from "./frame-script";
import { frontedPreviews } from "./preview-front";
import { PREVIEW_COOKIE } from "./preview-headers";
import { createPreviewHandlers, type LivePreviewLink, PREVIEW_ENTER_PATH, PREVIEW_LINK_PATH } from "./preview-server";

// The native front (server/sandbox/native/preview-front.c) as an attacker tries it: a browser's
// side writing raw bytes meant to slip a request past the checks, on a connection whose plain
// requests the front already serves itself, and a dev server writing raw answers meant to reach
// past the preview (its session cookie, a shared cache) or to desynchronise the connection. Both
// sides are raw sockets on loopback, so what is asserted is the exact bytes each side gets.

const LOGIN = { loginSessionId: "login" };
const NOT_HTTP = "The server's answer is not valid HTTP";

/** Whether the native module is built here (Linux): without it there is no front to test. */
const native = frontedPreviews({
  request: async () => {},
  upgrade: async () => {},
  admitFront: async () => null,
}).front.native;

// ---- The hostile dev server ----------------------------------------------------------------------

/** A request as the dev server parsed it (a lenient parser, as many are: bare LFs end lines). */
type Seen = { conn: number; line: string; path: string; headers: [string, string][]; body: string };

const seen: Seen[] = [];
/** When each of the dev server's connections closed. */
const appClosed = new Map<number, number>();
/** When each of its never-ending answers last found room to write. */
const lastDrain = new Map<number, number>();
let appConns = 0;

const headerOf = (headers: [string, string][], name: string) =>
  headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);

/** One request at the start of `data`, with its body (Content-Length or chunked), or null when it has not all come. */
function parseRequest(data: string): { request: Omit<Seen, "conn">; length: number } | null {
  const crlf = data.indexOf("\r\n\r\n");
  const lf = data.indexOf("\n\n");
  const end = crlf < 0 ? lf : lf < 0 ? crlf : Math.min(crlf, lf);
  if (end < 0) return null;
  let at = end + (end === crlf ? 4 : 2);
  const [line = "", ...lines] = data.slice(0, end).split(/\r?\n/);
  const headers = lines.map((l): [string, string] => {
    const colon = l.indexOf(":");
    return colon < 0 ? [l, ""] : [l.slice(0, colon).trim(), l.slice(colon + 1).trim()];
  });
  let body = "";
  if (headerOf(headers, "transfer-encoding").some((v) => /chunked/i.test(v))) {
    for (;;) {
      const sizeEnd = data.indexOf("\r\n", at);
      if (sizeEnd < 0) return null;
      const size = Number.parseInt(data.slice(at, sizeEnd), 16) || 0;
      if (data.length < sizeEnd + 2 + size + 2) return null;
      body += data.slice(sizeEnd + 2, sizeEnd + 2 + size);
      at = sizeEnd + 2 + size + 2;
      if (size === 0) break;
    }
  } else {
    const length = Number(headerOf(headers, "content-length")[0] ?? 0) || 0;
    if (data.length < at + length) return null;
    body = data.slice(at, at + length);
    at += length;
  }
  return { request: { line, path: line.split(" ")[1] ?? "", headers, body }, length: at };
}

const ok = (body: string, extra = "") =>
  `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n${extra}Content-Length: ${body.length}\r\n\r\n${body}`;

/** What the dev server writes for each path (by its part before `?`); anything else: `answer to <path>`. */
const ANSWERS: Record<string, (socket: net.Socket, conn: number) => void> = {
  // Two lengths: which one frames the body is anyone's guess.
  "/two-lengths": (s) => s.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!"),
  "/length-and-chunked": (s) =>
    s.write("HTTP/1.1 200 OK\r\nContent-Length: 30\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
  "/gzip": (s) => s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc"),
  "/switch": (s) => s.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"),
  // A bare CR, which some clients take for a line's end: a Set-Cookie for the preview's session behind it.
  "/bare-cr": (s) =>
    s.write(`HTTP/1.1 200 OK\r\nX-Note: a\rSet-Cookie: ${PREVIEW_COOKIE}=after-cr\r\nContent-Length: 2\r\n\r\nok`),
  "/nul": (s) =>
    s.write(`HTTP/1.1 200 OK\r\nX-Note: a\0Set-Cookie: ${PREVIEW_COOKIE}=after-nul\r\nContent-Length: 2\r\n\r\nok`),
  "/huge-head": (s) => s.write(`HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(17 * 1024)}\r\nContent-Length: 2\r\n\r\nok`),
  // More than its length: the rest is a whole answer of its own, waiting for the next request.
  "/overlong": (s) =>
    s.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nsmuggled-body"),
  "/chunked-extras": (s) =>
    s.write(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: Set-Cookie\r\n\r\n" +
        '5;name=val\r\nhello\r\n6 ; quoted="x;y"\r\n world\r\n0;last=ext\r\n' +
        `Set-Cookie: ${PREVIEW_COOKIE}=from-trailer\r\nX-Trailer: trailer-value\r\n\r\n`,
    ),
  // No length, not chunked: the body ends with the connection, written in parts.
  "/until-close": (s) => {
    s.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nfirst part, ");
    setTimeout(() => s.write("second part, "), 20);
    setTimeout(() => s.end("last part"), 40);
  },
  "/bad-chunk": (s) => s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"),
  // Promises 100 bytes, sends 10, hangs up.
  "/app-drops": (s) => {
    s.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
    setTimeout(() => s.destroy(), 20);
  },
  // A chunked answer one byte at a time: every chunk boundary falls across reads.
  "/trickled": (s) => {
    const bytes =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n4\r\ndefg\r\n0\r\nX-T: t\r\n\r\n";
    let i = 0;
    const next = () => {
      if (s.destroyed) return;
      s.write(bytes[i++]!);
      if (i < bytes.length) setTimeout(next, 1);
    };
    next();
  },
  "/early-hints": (s) =>
    s.write(
      "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
    ),
  // Takes the request and hangs up, every time.
  "/hang-up": (s) => s.destroy(),
  "/page.html": (s) =>
    s.write(
      ok("<!doctype html><html><head><title>app</title></head><body>page</body></html>").replace(
        "text/plain",
        "text/html",
      ),
    ),
  "/ws": (s) =>
    s.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nhello from the socket",
    ),
  // A HEAD answered with a body anyway: bytes no answer owns, shaped as the next one.
  "/head-with-body": (s) => s.write("HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nsmuggled-body"),
  "/cookies": (s) =>
    s.write(
      [
        "HTTP/1.1 200 OK",
        `Set-Cookie: ${PREVIEW_COOKIE}=evil`,
        `Set-Cookie:  ${PREVIEW_COOKIE} =evil; Path=/`,
        "Set-Cookie: =evil",
        "Set-Cookie: evil",
        "Set-Cookie: a=1; Domain=localhost; Path=/",
        'Clear-Site-Data: "cookies", "storage"',
        "Cache-Control: public, s-maxage=600, max-age=60",
        "Content-Length: 2",
        "",
        "ok",
      ].join("\r\n"),
    ),
  // Never ends: written as fast as it is taken.
  "/forever": (s, conn) => {
    s.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n");
    const piece = "x".repeat(16 * 1024);
    const pump = () => {
      lastDrain.set(conn, Date.now());
      while (!s.destroyed && s.write(piece)) {}
      if (!s.destroyed) s.once("drain", pump);
    };
    pump();
  },
};

function hostileApp() {
  return net.createServer((socket) => {
    const conn = ++appConns;
    let data = "";
    let done = false;
    socket.on("error", () => socket.destroy());
    socket.on("close", () => appClosed.set(conn, Date.now()));
    socket.on("data", (chunk) => {
      data += chunk.toString("latin1");
      while (!done) {
        const parsed = parseRequest(data);
        if (!parsed) return;
        data = data.slice(parsed.length);
        const request = { conn, ...parsed.request };
        seen.push(request);
        const path = request.path.split("?")[0]!;
        if (path === "/until-close") done = true;
        const special = ANSWERS[path];
        if (special) special(socket, conn);
        else if (path.startsWith("/smuggled")) socket.write(ok("SMUGGLED-ANSWER"));
        else socket.write(ok(`answer to ${request.path}`, `X-App-Conn: ${conn}\r\n`));
      }
    });
  });
}

// ---- The browser's side, raw -------------------------------------------------------------------

type Answer = { status: number; headers: [string, string][]; body: string; raw: string };

/** One answer at the start of `data`; null when it has not all come (or, when `closed`, never will). */
function parseAnswer(data: string, closed: boolean, head: boolean): { answer: Answer; length: number } | null {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const [statusLine = "", ...lines] = data.slice(0, end).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
  const headers = lines.map((l): [string, string] => {
    const colon = l.indexOf(":");
    return [l.slice(0, colon), l.slice(colon + 1).trim()];
  });
  let at = end + 4;
  let body = "";
  if (head || status === 204 || status === 304) {
    // No body.
  } else if (headerOf(headers, "transfer-encoding").length) {
    for (;;) {
      const sizeEnd = data.indexOf("\r\n", at);
      if (sizeEnd < 0) return null;
      const sizeLine = data.slice(at, sizeEnd);
      const size = Number.parseInt(sizeLine, 16);
      if (!/^[0-9a-fA-F]+$/.test(sizeLine.split(";")[0]!))
        throw new Error(`bad chunk size ${JSON.stringify(sizeLine)}`);
      if (size === 0) {
        const trailersEnd = data.indexOf("\r\n", sizeEnd + 2);
        // The end, or trailer lines up to a blank one.
        const close = data.startsWith("\r\n", sizeEnd + 2) ? sizeEnd + 4 : data.indexOf("\r\n\r\n", sizeEnd + 2) + 4;
        if (trailersEnd < 0 || close < 4) return null;
        at = close;
        break;
      }
      if (data.length < sizeEnd + 2 + size + 2) return null;
      body += data.slice(sizeEnd + 2, sizeEnd + 2 + size);
      if (data.slice(sizeEnd + 2 + size, sizeEnd + 4 + size) !== "\r\n") throw new Error("a chunk not ended by CRLF");
      at = sizeEnd + 4 + size;
    }
  } else if (headerOf(headers, "content-length").length) {
    const length = Number(headerOf(headers, "content-length")[0]);
    if (data.length < at + length) return null;
    body = data.slice(at, at + length);
    at += length;
  } else {
    if (!closed) return null;
    body = data.slice(at);
    at = data.length;
  }
  return { answer: { status, headers, body, raw: data.slice(0, at) }, length: at };
}

const clients = new Set<net.Socket>();

class Client {
  private data = "";
  /** Everything this connection ever received. */
  received = "";
  closed = false;
  private wake: (() => void) | null = null;

  constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on("data", (chunk) => {
      const text = chunk.toString("latin1");
      this.data += text;
      this.received += text;
      this.wake?.();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on("error", () => {});
  }

  write(text: string) {
    this.socket.write(Buffer.from(text, "latin1"));
  }

  /** The next whole answer; null when the connection closed without one; throws after `ms`. */
  async answer(ms = 3_000, options: { head?: boolean } = {}): Promise<Answer | null> {
    const end = Date.now() + ms;
    for (;;) {
      const parsed = parseAnswer(this.data, this.closed, options.head ?? false);
      if (parsed) {
        this.data = this.data.slice(parsed.length);
        return parsed.answer;
      }
      if (this.closed) return null;
      const left = end - Date.now();
      if (left <= 0) throw new Error(`no answer within ${ms} ms; so far: ${JSON.stringify(this.data.slice(0, 300))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Every answer until the connection closes or `quietMs` pass with none. */
  async answers(quietMs = 300): Promise<Answer[]> {
    const got: Answer[] = [];
    for (;;) {
      const next = await this.answer(got.length ? quietMs : 3_000).catch((error: Error) => {
        if (got.length) return null;
        throw error;
      });
      if (!next) return got;
      got.push(next);
    }
  }

  /** Resolves once the connection closed; throws after `ms`. */
  async gone(ms = 3_000) {
    await until(() => this.closed, "the connection closed", ms);
  }
}

// ---- The proxy ----------------------------------------------------------------------------------

describe.skipIf(!native)("the native preview front against a hostile browser and dev server", () => {
  const projectId = randomUUID();
  const access = createPreviewAccess("preview front test secret");
  const links = new Map<string, LivePreviewLink>();
  /** The targets of every head the front asked JS about: a path not among them was served by the front alone. */
  const asked: string[] = [];
  let app: net.Server;
  let proxyPort = 0;
  let shutdown: () => void = () => {};
  const host = () => `5173-${projectId}.localhost:${proxyPort}`;
  const origin = () => `http://${host()}`;

  beforeAll(async () => {
    app = hostileApp();
    await new Promise<void>((resolve) => app.listen(0, "127.0.0.1", resolve));
    const appPort = (app.address() as AddressInfo).port;
    const handlers = createPreviewHandlers({
      access,
      domain: "localhost",
      secure: false,
      spendEntry: spendInMemory(),
      admits: async (grant) =>
        grant.linkId !== undefined ? grant.exp > Date.now() : grant.userId === "alice" || grant.userId === "bob",
      link: async (token, target) => {
        const link = links.get(token);
        return link && link.projectId === target.projectId && link.port === target.port ? link : null;
      },
      onAccessEnd: () => () => {},
      connect: () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(appPort, "127.0.0.1", () => resolve(socket));
          socket.once("error", reject);
        }),
    });
    const { front } = frontedPreviews({
      ...handlers,
      admitFront: (ask, end) => {
        asked.push(ask.target);
        return handlers.admitFront(ask, end);
      },
    });
    await new Promise<void>((resolve) => front.server.listen(0, "127.0.0.1", resolve));
    proxyPort = (front.server.address() as AddressInfo).port;
    shutdown = () => {
      front.closeAll();
      front.server.close();
      handlers.closeSockets();
      app.close();
    };
  });

  afterEach(() => {
    for (const socket of clients) socket.destroy();
    clients.clear();
  });

  afterAll(() => shutdown());

  const open = () =>
    new Promise<Client>((resolve, reject) => {
      const socket = net.connect(proxyPort, "127.0.0.1");
      clients.add(socket);
      socket.once("connect", () => resolve(new Client(socket))).once("error", reject);
    });

  /** A member's preview session cookie (`alice` and `bob` are members, anyone else is not). */
  const sessionOf = (user: string, project = projectId) => {
    const token = access.entryToken(project, 5173, user, LOGIN);
    return `${PREVIEW_COOKIE}=${access.redeem(token, project, 5173)!.cookie}`;
  };

  /** A request's head, raw. */
  const get = (
    path: string,
    options: { cookie?: string | null; host?: string; headers?: string[]; method?: string } = {},
  ) =>
    `${options.method ?? "GET"} ${path} HTTP/1.1\r\nHost: ${options.host ?? host()}\r\n` +
    (options.cookie ? `Cookie: ${options.cookie}\r\n` : "") +
    (options.headers ?? []).map((h) => `${h}\r\n`).join("") +
    "\r\n";

  /** A connection whose first request (JS's to admit) was answered: its next ones are the front's. */
  const admitted = async (cookie: string) => {
    const client = await open();
    client.write(get("/first", { cookie }));
    const first = await client.answer();
    expect(first?.status).toBe(200);
    expect(first?.body).toBe("answer to /first");
    return client;
  };

  /** What the dev server saw from the `from`th request on. */
  const seenSince = (from: number) => seen.slice(from);

  /** Gives the dev server time to have seen whatever was coming (only for what must never come). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

  // ---- 1. Request smuggling from the browser's side ---------------------------------------------

  describe("a request hidden in another on a connection the front serves", () => {
    // The hidden request carries no session: anything that takes it for a request of its own and
    // checks it refuses it; only a desynchronised reading lets it reach the dev server.
    const inner = () => `GET /smuggled HTTP/1.1\r\nHost: ${host()}\r\n\r\n`;
    const cases: [string, (cookie: string) => string][] = [
      [
        "a GET with a Content-Length whose body is a request",
        (cookie) =>
          `GET /a HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nContent-Length: ${inner().length}\r\n\r\n${inner()}`,
      ],
      [
        "Transfer-Encoding: chunked with a Content-Length (CL.TE)",
        (cookie) => {
          const body = `0\r\n\r\n${inner()}`;
          return `GET /a HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`;
        },
      ],
      [
        "Transfer-Encoding: chunked with a Content-Length (TE.CL)",
        (cookie) =>
          `GET /a HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${(inner().length + 5).toString(16)}\r\n\r\n\r\n${inner()}\r\n0\r\n\r\n`,
      ],
      [
        "two differing Content-Lengths",
        (cookie) =>
          `GET /a HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nContent-Length: 0\r\nContent-Length: ${inner().length}\r\n\r\n${inner()}`,
      ],
      [
        "a Content-Length behind a bare LF",
        (cookie) =>
          `GET /a HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nX-Note: x\nContent-Length: ${inner().length}\r\n\r\n${inner()}`,
      ],
      [
        "a head of bare LFs",
        (cookie) =>
          `GET /a HTTP/1.1\nHost: ${host()}\nCookie: ${cookie}\nContent-Length: ${inner().length}\n\n${inner()}`,
      ],
      [
        "a Content-Length in a folded (obs-fold) line",
        (cookie) =>
          `GET /a HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nX-Note: x\r\n Content-Length: ${inner().length}\r\n\r\n${inner()}`,
      ],
      [
        "a NUL in the head before a Content-Length",
        (cookie) =>
          `GET /a HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nX-Note: x\0\r\nContent-Length: ${inner().length}\r\n\r\n${inner()}`,
      ],
      [
        "a NUL in the request line",
        (cookie) => `GET /a\0 HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\n\r\n${inner()}`,
      ],
      [
        "a plain request followed by one without a session",
        (cookie) => `GET /a HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nContent-Length: 0\r\n\r\n${inner()}`,
      ],
    ];

    it.each(cases)("%s: the hidden request never reaches the dev server", async (_name, request) => {
      const cookie = sessionOf("alice");
      const client = await admitted(cookie);
      const from = seen.length;
      client.write(request(cookie));
      const answers = await client.answers();
      await settle();
      expect(answers.length).toBeGreaterThan(0);
      // The request's own answer, or a refusal.
      const first = answers[0]!;
      if (first.status === 200) expect(first.body).toBe("answer to /a");
      else expect(first.status).toBeGreaterThanOrEqual(400);
      expect(first.status).toBeLessThan(500);
      for (const answer of answers) {
        expect(answer.body).not.toContain("SMUGGLED-ANSWER");
        expect([200, 400, 403]).toContain(answer.status);
      }
      expect(client.received).not.toContain("SMUGGLED-ANSWER");
      expect(seenSince(from).map((s) => s.line)).not.toContainEqual(expect.stringContaining("/smuggled"));
    });
  });

  // ---- 2. Pipelining ------------------------------------------------------------------------------

  it("answers two, then ten, requests written at once, each once and in order", async () => {
    const cookie = sessionOf("alice");
    const client = await open();
    const from = asked.length;
    client.write(get("/one", { cookie }) + get("/two", { cookie }));
    expect((await client.answer())?.body).toBe("answer to /one");
    expect((await client.answer())?.body).toBe("answer to /two");
    const paths = Array.from({ length: 10 }, (_, i) => `/p${i}?n=${i}`);
    client.write(paths.map((path) => get(path, { cookie })).join(""));
    for (const path of paths) {
      const answer = await client.answer();
      expect(answer?.status).toBe(200);
      expect(answer?.body).toBe(`answer to ${path}`);
    }
    // Nothing more: each was answered once.
    expect(await client.answer(300).catch(() => "none")).toBe("none");
    // The first was JS's to admit, every other one the front's alone.
    expect(asked.slice(from)).toEqual(["/one"]);
  });

  it("serves a query's percent-encoding itself, and asks JS about a path that could spell Tandem's", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    const from = asked.length;
    for (const path of ["/search?q=a%20b&next=%2F__tandem%2Fenter", "/a%20b", "/x/./y"]) {
      client.write(get(path, { cookie }));
      expect((await client.answer())?.body).toBe(`answer to ${path}`);
    }
    // The query is the app's to read; a path's `%` or dot segment JS reads first (tandemPath), then admits.
    expect(asked.slice(from)).toEqual(["/a%20b", "/x/./y"]);
  });

  // ---- 3. Hostile answers ---------------------------------------------------------------------------

  describe("an answer no browser may be given", () => {
    const malformed: [string, string][] = [
      ["two differing Content-Lengths", "/two-lengths"],
      ["a Content-Length and Transfer-Encoding", "/length-and-chunked"],
      ["Transfer-Encoding: gzip", "/gzip"],
      ["101 Switching Protocols to a plain GET", "/switch"],
      ["a header with a bare CR", "/bare-cr"],
      ["a header with a NUL", "/nul"],
      ["a head over 16 KiB", "/huge-head"],
    ];

    it.each(malformed)("%s is a 502, and the browser is served on", async (_name, path) => {
      const cookie = sessionOf("alice");
      const client = await admitted(cookie);
      const from = asked.length;
      client.write(get(path, { cookie }));
      const answer = await client.answer();
      expect(answer?.status).toBe(502);
      expect(answer?.body).toContain(NOT_HTTP);
      expect(answer?.raw).not.toContain(PREVIEW_COOKIE);
      // The front read the answer itself (JS was not asked about the request).
      expect(asked.slice(from)).toEqual([]);
      const again = await admitted(cookie);
      again.write(get("/after", { cookie }));
      expect((await again.answer())?.body).toBe("answer to /after");
    });

    // The 502's length is its page's: a wrong one left the page's end on the connection, and the
    // browser took it for the start of the next answer.
    it.each(malformed)("%s: the 502 is one whole answer, and the same connection serves on", async (_name, path) => {
      const cookie = sessionOf("alice");
      const client = await admitted(cookie);
      client.write(get(path, { cookie }));
      const answer = await client.answer();
      expect(answer?.status).toBe(502);
      expect(answer?.body).toMatch(/<\/p>$/);
      client.write(get("/after", { cookie }));
      const after = await client.answer();
      expect(after?.status).toBe(200);
      expect(after?.body).toBe("answer to /after");
    });

    // An answer to a HEAD has no body, a 502 neither: a page after it would be the next answer's start.
    it("a 502 to a HEAD has no body, and the same connection serves on", async () => {
      const cookie = sessionOf("alice");
      const client = await admitted(cookie);
      client.write(get("/gzip", { cookie, method: "HEAD" }));
      expect((await client.answer(3_000, { head: true }))?.status).toBe(502);
      client.write(get("/after", { cookie }));
      const after = await client.answer();
      expect(after?.status).toBe(200);
      expect(after?.body).toBe("answer to /after");
    });
  });

  it("passes on the final answer after an interim one (103 Early Hints), not the interim", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get("/early-hints", { cookie }) + get("/next", { cookie }));
    const answer = await client.answer();
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe("ok");
    expect(answer?.raw).not.toContain("103");
    expect((await client.answer())?.body).toBe("answer to /next");
  });

  it("answers a request the app hangs up on without answering, rather than hang", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get("/hang-up", { cookie }));
    const answer = await client.answer();
    // JS takes the connection back, Node's client tries once more, and tells the person.
    expect(answer?.status).toBe(502);
    expect(answer?.body).toContain("The server stopped answering");
    const again = await admitted(cookie);
    again.write(get("/next", { cookie }));
    expect((await again.answer())?.body).toBe("answer to /next");
  });

  it("never takes the bytes past an answer's length for the next request's answer", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get("/overlong", { cookie }));
    const answer = await client.answer();
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe("ok");
    client.write(get("/next", { cookie }));
    expect((await client.answer())?.body).toBe("answer to /next");
    // Written at once with the request before it: still its own answer.
    client.write(get("/overlong", { cookie }) + get("/next-again", { cookie }));
    expect((await client.answer())?.body).toBe("ok");
    expect((await client.answer())?.body).toBe("answer to /next-again");
    expect(client.received).not.toContain("smuggled-body");
  });

  it("never takes a body sent to a HEAD for the next request's answer", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    const from = asked.length;
    client.write(get("/head-with-body", { cookie, method: "HEAD" }));
    const head = await client.answer(3_000, { head: true });
    expect(head?.status).toBe(200);
    expect(headerOf(head!.headers, "content-length")).toEqual(["13"]);
    expect(asked.slice(from)).toEqual([]);
    client.write(get("/next", { cookie }));
    expect((await client.answer())?.body).toBe("answer to /next");
    expect(client.received).not.toContain("smuggled-body");
  });

  it("passes a chunked answer's data whole, without its extensions or trailers, and serves on", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get("/chunked-extras", { cookie }));
    const answer = await client.answer();
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe("hello world");
    for (const text of ["name=val", "quoted", "last=ext", "from-trailer", "X-Trailer", "trailer-value", PREVIEW_COOKIE])
      expect(answer?.raw).not.toContain(text);
    expect(headerOf(answer!.headers, "trailer")).toEqual([]);
    client.write(get("/next", { cookie }));
    expect((await client.answer())?.body).toBe("answer to /next");
  });

  it("passes a chunked answer that comes a byte at a time whole", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get("/trickled", { cookie }));
    const answer = await client.answer();
    expect(answer?.body).toBe("abcdefg");
    expect(answer?.raw).not.toContain("e=1");
    expect(answer?.raw).not.toContain("X-T");
    client.write(get("/next", { cookie }));
    expect((await client.answer())?.body).toBe("answer to /next");
  });

  it("serves a request whose head comes a byte at a time", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    const from = asked.length;
    for (const byte of get("/trickled-head", { cookie })) {
      client.write(byte);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect((await client.answer())?.body).toBe("answer to /trickled-head");
    expect(asked.slice(from)).toEqual([]);
  });

  it("passes a body that ends with the connection whole, and the browser's connection serves on", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get("/until-close", { cookie }));
    const answer = await client.answer();
    expect(answer?.status).toBe(200);
    expect(answer?.body).toBe("first part, second part, last part");
    client.write(get("/next", { cookie }));
    expect((await client.answer())?.body).toBe("answer to /next");
  });

  it.each([
    ["a bad chunk size", "/bad-chunk"],
    ["the app hanging up before its Content-Length's end", "/app-drops"],
  ])("breaks the browser's connection on %s, never passing it on as whole", async (_name, path) => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get(path, { cookie }));
    // Closed without a whole answer, in time.
    expect(await client.answer()).toBeNull();
    expect(client.received).not.toContain("hello");
    // Nothing else is held up by it.
    const again = await admitted(cookie);
    again.write(get("/next", { cookie }));
    expect((await again.answer())?.body).toBe("answer to /next");
  });

  describe("what the front hands back to Node's server on a connection it served", () => {
    it("carries a POST's body to the app", async () => {
      const cookie = sessionOf("alice");
      const client = await admitted(cookie);
      const from = seen.length;
      client.write(
        `POST /form HTTP/1.1\r\nHost: ${host()}\r\nCookie: ${cookie}\r\nOrigin: ${origin()}\r\nContent-Length: 11\r\n\r\nhello=world`,
      );
      expect((await client.answer())?.body).toBe("answer to /form");
      expect(seenSince(from).map((s) => [s.line, s.body])).toEqual([["POST /form HTTP/1.1", "hello=world"]]);
    });

    it("carries a WebSocket's handshake and bytes", async () => {
      const cookie = sessionOf("alice");
      const client = await admitted(cookie);
      client.write(
        get("/ws", {
          cookie,
          headers: [
            `Origin: ${origin()}`,
            "Connection: Upgrade",
            "Upgrade: websocket",
            "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
          ],
        }),
      );
      await until(() => client.received.includes("hello from the socket"), "the socket's bytes", 3_000);
      // After the first request's answer: the handshake's, then the socket's bytes.
      expect(client.received).toMatch(
        /answer to \/firstHTTP\/1\.1 101 Switching Protocols\r\n[\s\S]*\r\n\r\nhello from the socket$/,
      );
    });
  });

  it("adds the Preview panel's script to a page loaded in its frame", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get("/page.html", { cookie, headers: ["Sec-Fetch-Dest: iframe"] }));
    const answer = await client.answer();
    expect(answer?.status).toBe(200);
    expect(answer?.body).toContain(FRAME_SCRIPT_PATH);
    expect(answer?.body).toContain("<body>page</body>");
  });

  it("closes the connection after an answer the browser asked to be its last", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    client.write(get("/last", { cookie, headers: ["Connection: close"] }));
    expect((await client.answer())?.body).toBe("answer to /last");
    await client.gone();
  });

  // ---- 4. Cookies, caching and what the app sees -----------------------------------------------------

  it("never lets an answer on the front's path set the session cookie, a cookie's Domain, Clear-Site-Data or shared caching", async () => {
    const cookie = sessionOf("alice");
    const client = await admitted(cookie);
    const fromAsked = asked.length;
    const from = seen.length;
    client.write(
      get("/cookies", {
        cookie: `a=1; ${cookie}; b=2`,
        headers: [
          `Origin: ${origin()}`,
          `Referer: ${origin()}/page?x=1`,
          "Sec-Fetch-Dest: empty",
          "X-Tandem-Signature: forged",
        ],
      }),
    );
    const answer = await client.answer();
    expect(asked.slice(fromAsked)).toEqual([]);
    expect(answer?.status).toBe(200);
    expect(headerOf(answer!.headers, "set-cookie")).toEqual(["a=1; Path=/"]);
    expect(answer?.raw).not.toContain("evil");
    expect(answer?.raw).not.toMatch(/domain/i);
    expect(headerOf(answer!.headers, "clear-site-data")).toEqual([]);
    expect(headerOf(answer!.headers, "cache-control")).toEqual(["private, max-age=60"]);

    // What the app saw: its own Host and Origin, every cookie but the session, none of Tandem's headers.
    const request = seenSince(from).find((s) => s.path === "/cookies")!;
    expect(headerOf(request.headers, "host")).toEqual(["localhost:5173"]);
    expect(headerOf(request.headers, "cookie")).toEqual(["a=1; b=2"]);
    expect(headerOf(request.headers, "origin")).toEqual(["http://localhost:5173"]);
    expect(headerOf(request.headers, "referer")).toEqual(["http://localhost:5173/page?x=1"]);
    expect(headerOf(request.headers, "x-tandem-signature")).toEqual([]);
    expect(JSON.stringify(request)).not.toContain(PREVIEW_COOKIE);
    expect(JSON.stringify(request)).not.toContain(cookie.split("=")[1]!);
  });

  // ---- 5. Sessions on one connection --------------------------------------------------------------

  describe("another session on a connection the front serves", () => {
    it("serves another person's session over a connection into the workspace of its own", async () => {
      const alice = sessionOf("alice");
      const bob = sessionOf("bob");
      const client = await open();
      const conn = async (path: string, cookie: string) => {
        client.write(get(path, { cookie }));
        const answer = await client.answer();
        expect(answer?.status).toBe(200);
        expect(answer?.body).toBe(`answer to ${path}`);
        return headerOf(answer!.headers, "x-app-conn")[0]!;
      };
      const first = await conn("/as-alice", alice);
      expect(await conn("/as-alice-again", alice)).toBe(first);
      const asBob = await conn("/as-bob", bob);
      expect(asBob).not.toBe(first);
      const backToAlice = await conn("/as-alice-once-more", alice);
      expect(backToAlice).not.toBe(asBob);
      expect(await conn("/as-bob-again", bob)).not.toBe(backToAlice);
    });

    it.each<[string, (own: string) => string | null]>([
      ["a stranger's session", () => sessionOf("mallory")],
      ["a session of another project", () => sessionOf("alice", randomUUID())],
      ["a garbage session cookie", () => `${PREVIEW_COOKIE}=garbage`],
      ["its own session twice", (own) => `${own}; ${own}`],
      ["its own session and another", (own) => `${own}; ${sessionOf("alice")}`],
      ["no cookie", () => null],
    ])("refuses %s with 403, the app seeing nothing", async (_name, cookieFor) => {
      const own = sessionOf("alice");
      const client = await admitted(own);
      const from = seen.length;
      client.write(get("/private", { cookie: cookieFor(own) }));
      const answer = await client.answer();
      expect(answer?.status).toBe(403);
      await settle();
      expect(seenSince(from)).toEqual([]);
    });

    it("refuses a request naming another port with 403, the app seeing nothing", async () => {
      const own = sessionOf("alice");
      const client = await admitted(own);
      const from = seen.length;
      client.write(get("/other-port", { cookie: own, host: `3000-${projectId}.localhost:${proxyPort}` }));
      expect((await client.answer())?.status).toBe(403);
      await settle();
      expect(seenSince(from)).toEqual([]);
    });

    /** Sends an entry link's real token on an admitted connection, at `path`: the app must not see it. */
    const entryStaysOut = async (path: string) => {
      const own = sessionOf("alice");
      const client = await admitted(own);
      const secret = access.entryToken(projectId, 5173, "alice", LOGIN);
      const from = seen.length;
      client.write(get(`${path}?t=${secret}`, { cookie: own }));
      const answer = await client.answer();
      expect(answer?.body).not.toContain("answer to");
      await settle();
      expect(JSON.stringify(seenSince(from))).not.toContain(secret);
    };

    it.each([
      PREVIEW_ENTER_PATH,
      `/.${PREVIEW_ENTER_PATH}`,
      `/x/..${PREVIEW_ENTER_PATH}`,
      `/%2e${PREVIEW_ENTER_PATH}`,
      PREVIEW_LINK_PATH,
    ])("never lets an entry link's token reach the app, the entry written as %s", (path) => entryStaysOut(path));

    // Spellings a URL's pathname does not bring back to `/__tandem/` (`%5F` stays encoded, and
    // `//__tandem` is read as a host): Tandem's paths however written (tandemPath), never forwarded.
    it.each([`/%5F_tandem/enter`, `/${PREVIEW_ENTER_PATH}`])(
      "never lets an entry link's token reach the app, the entry written as %s",
      (path) => entryStaysOut(path),
    );
  });

  // ---- 6. Expiry ----------------------------------------------------------------------------------

  it("serves a public link's session until it expires, then refuses it on the same kept connection", async () => {
    const token = randomUUID();
    const expiresAt = new Date(Date.now() + 1_500);
    links.set(token, { id: randomUUID(), projectId, port: 5173, expiresAt });
    const entry = await open();
    entry.write(get(`${PREVIEW_LINK_PATH}?t=${token}`));
    const redirect = await entry.answer();
    expect(redirect?.status).toBe(302);
    const cookie = headerOf(redirect!.headers, "set-cookie")[0]!.split(";")[0]!;
    expect(cookie.startsWith(`${PREVIEW_COOKIE}=`)).toBe(true);

    const client = await admitted(cookie);
    const fromAsked = asked.length;
    client.write(get("/while-live", { cookie }));
    expect((await client.answer())?.body).toBe("answer to /while-live");
    expect(asked.slice(fromAsked)).toEqual([]);

    await until(() => Date.now() > expiresAt.getTime() + 20, "the link expired", 3_000);
    const from = seen.length;
    client.write(get("/after-expiry", { cookie }));
    expect((await client.answer())?.status).toBe(403);
    await settle();
    expect(seenSince(from)).toEqual([]);
  });

  // ---- 7. Descriptors -----------------------------------------------------------------------------

  it("leaves no descriptor behind, whichever way its connections end", { timeout: 20_000 }, async () => {
    const fds = () => readdirSync("/proc/self/fd").length;
    /** Each way a connection goes, leaving its connection open where it stays open. */
    const ways: (() => Promise<Client>)[] = [
      // Admitted, then served by the front.
      async () => {
        const cookie = sessionOf("alice");
        const client = await admitted(cookie);
        client.write(get("/again", { cookie }));
        expect((await client.answer())?.status).toBe(200);
        return client;
      },
      // Handed back to Node's server, which refuses it.
      async () => {
        const client = await open();
        client.write(get("/x", { cookie: `${PREVIEW_COOKIE}=garbage` }));
        expect((await client.answer())?.status).toBe(403);
        return client;
      },
      // A 502.
      async () => {
        const cookie = sessionOf("alice");
        const client = await admitted(cookie);
        client.write(get("/two-lengths", { cookie }));
        expect((await client.answer())?.status).toBe(502);
        return client;
      },
      // The browser gone mid-answer.
      async () => {
        const cookie = sessionOf("alice");
        const client = await admitted(cookie);
        client.write(get("/forever", { cookie }));
        await until(() => client.received.includes("xxxxxxxx"), "the answer streaming", 3_000);
        client.socket.destroy();
        return client;
      },
      // The app gone mid-answer.
      async () => {
        const cookie = sessionOf("alice");
        const client = await admitted(cookie);
        client.write(get("/app-drops", { cookie }));
        expect(await client.answer()).toBeNull();
        return client;
      },
    ];
    const before = fds();
    const kept: Client[] = [];
    for (let round = 0; round < 8; round++) kept.push(...(await Promise.all(ways.map((way) => way()))));
    // The three ways that stay open hold descriptors now (the browser's, the front's, the app's).
    expect(fds()).toBeGreaterThanOrEqual(before + 8 * 3);
    for (const client of kept) client.socket.destroy();
    await until(() => fds() <= before + 2, `descriptors back near ${before}`, 5_000);
  });

  // ---- 8. A browser gone mid-answer ----------------------------------------------------------------

  it.each([
    ["while reading", false],
    ["after it stopped reading", true],
  ])(
    "closes the app's connection within a second when the browser drops a never-ending answer %s",
    async (_name, stop) => {
      const cookie = sessionOf("alice");
      const client = await admitted(cookie);
      const from = seen.length;
      client.write(get("/forever", { cookie }));
      await until(() => client.received.includes("xxxxxxxx"), "the answer streaming", 3_000);
      const conn = seenSince(from).find((s) => s.path === "/forever")!.conn;
      if (stop) {
        client.socket.pause();
        // Everything on the way is full: the app can write no more.
        await until(() => Date.now() - (lastDrain.get(conn) ?? 0) > 200, "the app held back", 3_000);
      }
      expect(appClosed.has(conn)).toBe(false);
      const dropped = Date.now();
      client.socket.destroy();
      await until(() => appClosed.has(conn), "the app's connection closed", 1_000);
      expect(appClosed.get(conn)! - dropped).toBeLessThan(1_000);
    },
  );
});
