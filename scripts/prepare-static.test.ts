import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { COMPILE_HINT, prepareStatic } from "./prepare-static.mjs";

describe("prepareStatic", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("puts V8's compile hint first in every script, once, and compresses what it serves", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "tandem-static-"));
    mkdirSync(path.join(dir, "chunks"));
    const script = `(globalThis.TURBOPACK||[]).push([1,e=>{${"let a=1;".repeat(300)}}]);`;
    const css = `.a{color:red}${".b{color:blue}".repeat(100)}`;
    writeFileSync(path.join(dir, "chunks", "app.js"), script);
    writeFileSync(path.join(dir, "chunks", "tiny.js"), "1");
    writeFileSync(path.join(dir, "chunks", "app.css"), css);

    await prepareStatic(dir);
    // A second run (a build's assets prepared again) changes nothing.
    await prepareStatic(dir);

    const served = readFileSync(path.join(dir, "chunks", "app.js"), "utf8");
    expect(served).toBe(COMPILE_HINT + script);
    expect(served.startsWith("//# allFunctionsCalledOnLoad\n")).toBe(true);
    expect(brotliDecompressSync(readFileSync(path.join(dir, "chunks", "app.js.br"))).toString()).toBe(served);
    expect(gunzipSync(readFileSync(path.join(dir, "chunks", "app.js.gz"))).toString()).toBe(served);
    // A script too small to compress still gets the hint; a stylesheet is left as it is.
    expect(readFileSync(path.join(dir, "chunks", "tiny.js"), "utf8")).toBe(`${COMPILE_HINT}1`);
    expect(readFileSync(path.join(dir, "chunks", "app.css"), "utf8")).toBe(css);
    expect(brotliDecompressSync(readFileSync(path.join(dir, "chunks", "app.css.br"))).toString()).toBe(css);
  });
});
