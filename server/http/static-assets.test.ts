import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPublicFiles, createStaticAssets, PUBLIC_MAX_AGE } from "./static-assets";

const SCRIPT = `console.log(${JSON.stringify("x".repeat(4000))});`;
let appDir: string;
let server: http.Server;
let base: string;

beforeAll(async () => {
  appDir = mkdtempSync(path.join(os.tmpdir(), "tandem-static-"));
  const chunks = path.join(appDir, ".next", "static", "chunks");
  mkdirSync(chunks, { recursive: true });
  writeFileSync(path.join(chunks, "app.js"), SCRIPT);
  writeFileSync(path.join(chunks, "app.js.br"), brotliCompressSync(SCRIPT));
  writeFileSync(path.join(chunks, "app.js.gz"), gzipSync(SCRIPT));
  writeFileSync(path.join(appDir, ".next", "secret.json"), "{}");
  const assets = createStaticAssets(appDir);
  server = http.createServer((req, res) =>
    assets(req, res, () => res.writeHead(404, { "x-fallback": req.url ?? "" }).end()),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(appDir, { recursive: true, force: true });
});

const get = (urlPath: string, encoding: string) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    // A raw request: fetch would decompress and normalise "..".
    http
      .get(`${base}${urlPath}`, { headers: { "accept-encoding": encoding } }, (res) => {
        const parts: Buffer[] = [];
        res.on("data", (part: Buffer) => parts.push(part));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      })
      .on("error", reject);
  });

describe("static assets", () => {
  it("sends the precompressed brotli twin to browsers that take it, cached for a year", async () => {
    const response = await get("/_next/static/chunks/app.js", "gzip, deflate, br");
    expect(response.status).toBe(200);
    expect(response.headers["content-encoding"]).toBe("br");
    expect(response.headers["content-type"]).toMatch(/javascript/);
    expect(response.headers["cache-control"]).toBe("public,max-age=31536000,immutable");
    expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    expect(brotliDecompressSync(response.body).toString()).toBe(SCRIPT);
  });

  it("falls back to gzip, then to the plain file", async () => {
    expect((await get("/_next/static/chunks/app.js", "gzip")).headers["content-encoding"]).toBe("gzip");
    const plain = await get("/_next/static/chunks/app.js", "identity");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
  });

  it("hands unknown files to the fallback with the original URL, and nothing outside .next/static leaks", async () => {
    const missing = await get("/_next/static/chunks/missing.js", "br");
    expect(missing.status).toBe(404);
    expect(missing.headers["x-fallback"]).toBe("/_next/static/chunks/missing.js");
    for (const climb of [
      "/_next/static/../secret.json",
      "/_next/static/%2e%2e/secret.json",
      "/_next/static/..%2fsecret.json",
    ]) {
      const response = await get(climb, "identity");
      expect(response.status).toBe(404);
      expect(response.body.toString()).not.toBe("{}");
    }
  });
});

describe("public files", () => {
  // The project's own public/ folder, served as `npm start` serves it.
  let publicServer: http.Server;
  let publicBase: string;
  const fetchPublic = (urlPath: string, init?: RequestInit) => fetch(`${publicBase}${urlPath}`, init);

  beforeAll(async () => {
    const files = createPublicFiles(process.cwd());
    publicServer = http.createServer((req, res) =>
      files(req, res, () => res.writeHead(404, { "x-fallback": req.url ?? "" }).end()),
    );
    await new Promise<void>((resolve) => publicServer.listen(0, "127.0.0.1", resolve));
    publicBase = `http://127.0.0.1:${(publicServer.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => publicServer.close(resolve));
  });

  it("serves the favicon and the manifest's icons, cached for a day and revalidated by ETag", async () => {
    const favicon = await fetchPublic("/favicon.ico");
    expect(favicon.status).toBe(200);
    expect(favicon.headers.get("cache-control")).toBe(`public,max-age=${PUBLIC_MAX_AGE}`);
    const etag = favicon.headers.get("etag")!;
    expect((await fetchPublic("/favicon.ico", { headers: { "if-none-match": etag } })).status).toBe(304);

    const manifest = await fetchPublic("/manifest.webmanifest");
    expect(manifest.headers.get("content-type")).toMatch(/^application\/manifest\+json/);
    const { icons, start_url } = (await manifest.json()) as {
      icons: Array<{ src: string; type: string }>;
      start_url: string;
    };
    expect(start_url).toBe("/");
    expect(icons.some((icon) => icon.src === "/icon-512.png")).toBe(true);
    for (const icon of icons) {
      const response = await fetchPublic(icon.src);
      expect(response.status, icon.src).toBe(200);
      expect(response.headers.get("content-type")).toBe(icon.type);
    }
  });

  it("asks crawlers to keep out of share and invitation links", async () => {
    const robots = await (await fetchPublic("/robots.txt")).text();
    expect(robots).toMatch(/^User-agent: \*$/m);
    expect(robots).toMatch(/^Disallow: \/s\/$/m);
    expect(robots).toMatch(/^Disallow: \/join\/$/m);
  });

  it("hands pages, unknown files and writes to the fallback", async () => {
    for (const urlPath of ["/", "/p/some-project", "/missing.png", "/../package.json"]) {
      const response = await fetchPublic(urlPath);
      expect(response.status, urlPath).toBe(404);
    }
    expect((await fetchPublic("/robots.txt", { method: "POST" })).headers.get("x-fallback")).toBe("/robots.txt");
  });
});
