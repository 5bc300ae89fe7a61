import { chmod, mkdir, readFile, readdir, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { currentVersionFromConflict } from "@/lib/fs-schemas";
import { expectCode, useTempDirs } from "@/server/test/temp-dirs";
import { MAX_FILE_BYTES, READ_ONLY_BYTES, versionOf } from "./file-limits";
import { Workspace } from "./workspace";

const tempDir = useTempDirs();
let ws: Workspace;
const onDisk = (p: string) => readFile(path.join(ws.root, p));
const put = (p: string, bytes: string | Buffer) => writeFile(path.join(ws.root, p), bytes);

beforeEach(async () => {
  ws = await Workspace.open(await tempDir());
});

describe("read", () => {
  it("reads UTF-8 text with its version, size and line endings", async () => {
    await put("a.ts", "const a = 1;\nconst b = 2;\n");
    const file = await ws.read("a.ts");
    expect(file).toMatchObject({
      kind: "text",
      path: "a.ts",
      content: "const a = 1;\nconst b = 2;\n",
      encoding: "utf8",
      bom: false,
      eol: "\n",
      readOnly: false,
      size: 26,
    });
    expect(file.version).toBe(versionOf(await onDisk("a.ts")));
  });

  it("detects CRLF, a UTF-8 BOM and UTF-16 in both byte orders", async () => {
    await put("crlf.txt", "one\r\ntwo\r\n");
    await put("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\n")]));
    await put("le.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("wide\r\ntext", "utf16le")]));
    await put("be.txt", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("big end", "utf16le").swap16()]));
    expect(await ws.read("crlf.txt")).toMatchObject({ content: "one\r\ntwo\r\n", eol: "\r\n" });
    expect(await ws.read("bom.txt")).toMatchObject({ content: "héllo\n", bom: true, encoding: "utf8" });
    expect(await ws.read("le.txt")).toMatchObject({
      content: "wide\r\ntext",
      encoding: "utf16le",
      bom: true,
      eol: "\r\n",
    });
    expect(await ws.read("be.txt")).toMatchObject({ content: "big end", encoding: "utf16be", bom: true });
  });

  it("reports binary files without their bytes", async () => {
    await put("nul.dat", Buffer.from([0x41, 0x00, 0x42]));
    await put("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x21]));
    await put("logo.png", "not really a png, but the extension says binary");
    const nul = await ws.read("nul.dat");
    expect(nul).toEqual({
      kind: "binary",
      path: "nul.dat",
      size: 3,
      version: versionOf(Buffer.from([0x41, 0x00, 0x42])),
    });
    expect(await ws.read("latin1.txt")).toMatchObject({ kind: "binary" });
    expect(await ws.read("logo.png")).toMatchObject({ kind: "binary", mime: "image/png" });
    expect(nul).not.toHaveProperty("content");
  });

  it("keeps a multi-byte character cut at the 8 KB sniff boundary as text", async () => {
    await put("long.md", `${"a".repeat(8191)}é and more`);
    expect(await ws.read("long.md")).toMatchObject({ kind: "text" });
  });

  it("opens text with invalid UTF-8 past the first 8 KB read-only", async () => {
    await put("late.txt", Buffer.concat([Buffer.from("x".repeat(9000)), Buffer.from([0xe9])]));
    const file = await ws.read("late.txt");
    expect(file).toMatchObject({ kind: "text", readOnly: true });
    expect(file.kind === "text" && file.notice).toMatch(/not valid UTF-8/);
  });

  it("opens files over 5 MB read-only and refuses files over 20 MB", async () => {
    await put("big.log", "line\n".repeat(READ_ONLY_BYTES / 5 + 10));
    const big = await ws.read("big.log");
    expect(big).toMatchObject({ kind: "text", readOnly: true });
    expect(big.kind === "text" && big.notice).toMatch(/read-only/);
    await put("huge.log", Buffer.alloc(MAX_FILE_BYTES + 1, 0x61));
    const error = await expectCode(ws.read("huge.log"), "TOO_LARGE");
    expect(error.message).toMatch(/terminal/);
    await expectCode(ws.write("huge.log", "x"), "TOO_LARGE");
  });

  it("says when the path is a folder or missing", async () => {
    await mkdir(path.join(ws.root, "src"));
    await expectCode(ws.read("src"), "IS_DIRECTORY");
    await expectCode(ws.read("missing.ts"), "NOT_FOUND");
    await put("file.txt", "x");
    await expectCode(ws.list("file.txt"), "NOT_A_DIRECTORY");
  });
});

describe("write", () => {
  it("returns the new version and refuses a stale one, leaving the bytes unchanged", async () => {
    await put("a.ts", "v1");
    const { version: v1 } = await ws.read("a.ts");
    const { version: v2 } = await ws.write("a.ts", "v2", { expectedVersion: v1 });
    expect(v2).toBe(versionOf(Buffer.from("v2")));
    const error = await expectCode(ws.write("a.ts", "stale edit", { expectedVersion: v1 }), "CONFLICT");
    expect(error.currentVersion).toBe(v2);
    expect(currentVersionFromConflict(error.message)).toBe(v2);
    expect((await onDisk("a.ts")).toString()).toBe("v2");
  });

  it("catches a conflict even when size and mtime are the same", async () => {
    await put("same.txt", "aaaa");
    const { version } = await ws.read("same.txt");
    const { mtime } = await stat(path.join(ws.root, "same.txt"));
    await put("same.txt", "bbbb");
    await utimes(path.join(ws.root, "same.txt"), mtime, mtime);
    await expectCode(ws.write("same.txt", "cccc", { expectedVersion: version }), "CONFLICT");
  });

  it("treats expectedVersion null as 'must not exist' and reports a deleted file", async () => {
    await put("a.ts", "here");
    await expectCode(ws.write("a.ts", "x", { expectedVersion: null }), "CONFLICT");
    const { version } = await ws.write("b.ts", "new", { expectedVersion: null });
    await ws.delete("b.ts");
    const error = await expectCode(ws.write("b.ts", "again", { expectedVersion: version }), "CONFLICT");
    expect(error.currentVersion).toBeNull();
    expect(currentVersionFromConflict(error.message)).toBeNull();
  });

  it("writes CRLF into a CRLF file even when the client sends LF", async () => {
    await put("win.txt", "a\r\nb\r\n");
    await ws.write("win.txt", "a\nb\nc\n");
    expect((await onDisk("win.txt")).toString()).toBe("a\r\nb\r\nc\r\n");
    await ws.write("win.txt", "x\r\ny\n");
    expect((await onDisk("win.txt")).toString()).toBe("x\r\ny\r\n");
  });

  it("keeps LF files as sent, and lets the caller switch the format", async () => {
    await put("unix.txt", "a\nb\n");
    await ws.write("unix.txt", "a\nb\nc\n");
    expect((await onDisk("unix.txt")).toString()).toBe("a\nb\nc\n");
    await ws.write("unix.txt", "a\nb\n", { format: { eol: "\r\n", bom: true } });
    expect(await onDisk("unix.txt")).toEqual(Buffer.from("\ufeffa\r\nb\r\n"));
  });

  it("keeps a UTF-8 BOM and UTF-16 encodings", async () => {
    await put("bom.txt", Buffer.from("\ufeffold\n"));
    await ws.write("bom.txt", "new\n");
    expect(await onDisk("bom.txt")).toEqual(Buffer.from("\ufeffnew\n"));
    await put("le.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\r\n", "utf16le")]));
    await ws.write("le.txt", "é\n");
    expect(await onDisk("le.txt")).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("é\r\n", "utf16le")]));
    await put("be.txt", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("a", "utf16le").swap16()]));
    await ws.write("be.txt", "zé");
    expect(await onDisk("be.txt")).toEqual(
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("zé", "utf16le").swap16()]),
    );
    const roundTrip = await ws.read("be.txt");
    expect(roundTrip).toMatchObject({ content: "zé", encoding: "utf16be" });
  });

  it("keeps the file mode and leaves no temp files", async () => {
    await put("run.sh", "#!/bin/sh\n");
    await chmod(path.join(ws.root, "run.sh"), 0o755);
    await ws.write("run.sh", "#!/bin/sh\necho hi\n");
    expect((await stat(path.join(ws.root, "run.sh"))).mode & 0o777).toBe(0o755);
    expect(await readdir(ws.root)).toEqual(["run.sh"]);
  });

  it("creates parent folders only when asked", async () => {
    const error = await expectCode(ws.write("deep/er/x.ts", "x"), "NOT_FOUND");
    expect(error.message).toMatch(/Create it first/);
    await ws.write("deep/er/x.ts", "x", { createParents: true });
    expect((await onDisk("deep/er/x.ts")).toString()).toBe("x");
    await expectCode(ws.write("deep/er/x.ts/y.ts", "x", { createParents: true }), "NOT_A_DIRECTORY");
  });

  it("serializes concurrent writes so only one stale writer wins", async () => {
    await put("race.txt", "0");
    const { version } = await ws.read("race.txt");
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((n) => ws.write("race.txt", String(n), { expectedVersion: version })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

describe("create, mkdir, rename, delete", () => {
  it("creates files and refuses existing ones", async () => {
    const { version } = await ws.create("new.ts");
    expect(version).toBe(versionOf(Buffer.alloc(0)));
    await expectCode(ws.create("new.ts", "again"), "EXISTS");
    await ws.mkdir("dir");
    await expectCode(ws.create("dir"), "EXISTS");
    await ws.create("a/b/c.ts", "c", { createParents: true });
    expect((await onDisk("a/b/c.ts")).toString()).toBe("c");
  });

  it("makes folders with parents and refuses existing ones", async () => {
    await ws.mkdir("x/y/z");
    expect((await stat(path.join(ws.root, "x/y/z"))).isDirectory()).toBe(true);
    await expectCode(ws.mkdir("x/y"), "EXISTS");
    await expectCode(ws.mkdir(""), "EXISTS");
  });

  it("renames and moves files and folders without overwriting", async () => {
    await ws.create("src/a.ts", "a", { createParents: true });
    await ws.create("src/b.ts", "b");
    await ws.rename("src/a.ts", "src/c.ts");
    expect((await onDisk("src/c.ts")).toString()).toBe("a");
    await expectCode(ws.rename("src/c.ts", "src/b.ts"), "EXISTS");
    expect((await onDisk("src/b.ts")).toString()).toBe("b");
    await ws.rename("src", "lib/src", { createParents: true });
    expect((await onDisk("lib/src/b.ts")).toString()).toBe("b");
    await expectCode(ws.rename("lib", "lib/inner"), "INVALID_PATH");
    await expectCode(ws.rename("missing", "other"), "NOT_FOUND");
    await expectCode(ws.rename("lib/src/b.ts", "nowhere/b.ts"), "NOT_FOUND");
  });

  it("deletes files and folders recursively", async () => {
    await ws.create("d/e/f.ts", "f", { createParents: true });
    await ws.delete("d");
    expect(await readdir(ws.root)).toEqual([]);
    await expectCode(ws.delete("d"), "NOT_FOUND");
  });
});
