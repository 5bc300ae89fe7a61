import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { isTempFileName } from "./atomic-write";
import { expectCode, useTempDirs } from "@/server/test/temp-dirs";
import { Workspace } from "./workspace";

// A crash between writing the temp file and renaming it over the target, simulated by a failing rename.
const crash = vi.hoisted(() => ({ rename: false, link: false }));
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  const fail = (what: string) => Object.assign(new Error(`simulated crash before ${what}`), { code: "EIO" });
  return {
    ...real,
    rename: async (...args: Parameters<typeof real.rename>) => {
      if (crash.rename) throw fail("rename");
      return real.rename(...args);
    },
    link: async (...args: Parameters<typeof real.link>) => {
      if (crash.link) throw fail("link");
      return real.link(...args);
    },
  };
});

const tempDir = useTempDirs();
let ws: Workspace;

beforeEach(async () => {
  crash.rename = false;
  crash.link = false;
  ws = await Workspace.open(await tempDir());
});

describe("atomic writes", () => {
  it("leaves the old file intact and no temp file when the rename fails", async () => {
    await writeFile(path.join(ws.root, "a.txt"), "old bytes");
    const { version } = await ws.read("a.txt");
    crash.rename = true;
    await expectCode(ws.write("a.txt", "new bytes", { expectedVersion: version }), "IO_ERROR");
    expect(await readFile(path.join(ws.root, "a.txt"), "utf8")).toBe("old bytes");
    expect(await readdir(ws.root)).toEqual(["a.txt"]);
    crash.rename = false;
    await ws.write("a.txt", "new bytes", { expectedVersion: version });
    expect(await readFile(path.join(ws.root, "a.txt"), "utf8")).toBe("new bytes");
  });

  it("creates nothing and leaves no temp file when placing a new file fails", async () => {
    crash.link = true;
    await expectCode(ws.create("b.txt", "content"), "IO_ERROR");
    expect(await readdir(ws.root)).toEqual([]);
  });

  it("names its temp files so watchers can skip them", () => {
    expect(isTempFileName(".tandem-a.txt.0123456789ab.tmp")).toBe(true);
    expect(isTempFileName("a.txt")).toBe(false);
  });
});
