import { execFileSync } from "node:child_process";
import { lstat, mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { createGzip, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { effectOf } from "./define-tool";
import { rawTar } from "@/server/test/tar-bytes";
import { useToolSessions } from "@/server/test/tool-session";
import { rawZip } from "@/server/test/zip-bytes";
import { archiveTool } from "./archive";

// The archive tool against archives an attacker wrote into the workspace: climbing and absolute
// names, links of every kind, FIFOs, zip bombs with lying sizes, gzip bombs, too many entries.
// A refused archive writes nothing.

const session = useToolSessions();

async function tree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      out.push(entry.isDirectory() ? `${rel}/` : rel);
      if (entry.isDirectory()) await walk(rel);
    }
  };
  await walk("");
  return out.sort();
}

/** A gzip of a tar whose one file is `megabytes` of zeros, made without holding it in memory. */
async function gzipBomb(megabytes: number): Promise<Buffer> {
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => gzip.on("end", r));
  const header = rawTar([{ name: "zeros.bin", data: "" }]).subarray(0, 512);
  header.write(`${(megabytes * 1024 * 1024).toString(8).padStart(11, "0")}\0`, 124, "latin1");
  header.write("        ", 148, "latin1");
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  gzip.write(header);
  const mb = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < megabytes; i++) if (!gzip.write(mb)) await new Promise((r) => gzip.once("drain", r));
  gzip.end(Buffer.alloc(1024));
  await done;
  return Buffer.concat(chunks);
}

describe("archive", () => {
  it("lists and extracts a zip and a tar.gz made by the real tools, into a folder named after each", async () => {
    const s = await session();
    await mkdir(path.join(s.root, "src/sub"), { recursive: true });
    await writeFile(path.join(s.root, "src/a.txt"), "alpha\n");
    await writeFile(path.join(s.root, "src/sub/b.bin"), Buffer.from([0, 1, 2, 255]));
    execFileSync("zip", ["-qr", "pack.zip", "src"], { cwd: s.root });
    execFileSync("tar", ["-czf", "bundle.tar.gz", "src"], { cwd: s.root });
    for (const name of ["pack.zip", "bundle.tar.gz"]) {
      const list = await s.run(archiveTool, { action: "list", path: name });
      expect(list.error).toBeUndefined();
      expect(list.llm).toMatch(/2 file\(s\), 10 B unpacked/);
      expect(list.display).toMatchObject({ kind: "table", columns: ["Name", "Type", "Size"] });
      const run = await s.run(archiveTool, { action: "extract", path: name });
      expect(run.error, String(run.llm)).toBeUndefined();
      expect(run.llm).toMatch(/^Extracted 2 file\(s\), 10 B/);
      const into = name === "pack.zip" ? "pack" : "bundle";
      expect(await readFile(path.join(s.root, into, "src/a.txt"), "utf8")).toBe("alpha\n");
      expect([...(await readFile(path.join(s.root, into, "src/sub/b.bin")))]).toEqual([0, 1, 2, 255]);
      // The second extraction into the same folder refuses to replace, unless asked to.
      if (name === "bundle.tar.gz") {
        await writeFile(path.join(s.root, "pack/src/a.txt"), "changed\n");
        const again = await s.run(archiveTool, { action: "extract", path: name, to: "pack" });
        expect(again.error?.code).toBe("EXISTS");
        expect(again.llm).toContain("nothing was extracted");
        expect(await readFile(path.join(s.root, "pack/src/a.txt"), "utf8")).toBe("changed\n");
        const replaced = await s.run(archiveTool, { action: "extract", path: name, to: "pack", overwrite: true });
        expect(replaced.error).toBeUndefined();
        expect(await readFile(path.join(s.root, "pack/src/a.txt"), "utf8")).toBe("alpha\n");
      }
    }
  });

  it("is a read when it lists and a change of the workspace when it extracts, and extracting asks", () => {
    expect(effectOf(archiveTool, { action: "list", path: "a.zip" })).toBe("none");
    expect(effectOf(archiveTool, { action: "extract", path: "a.zip" })).toBe("workspace");
    expect(archiveTool.needsApproval?.({ action: "extract", path: "a.zip" }, {} as never)).toBe(true);
    expect(archiveTool.needsApproval?.({ action: "list", path: "a.zip" }, {} as never)).toBe(false);
  });

  it("refuses hostile zips whole: climbing and absolute names, a symlink, a bomb with lying sizes, too many entries", async () => {
    const s = await session();
    const hostile: Record<string, Buffer> = {
      "climb.zip": rawZip([
        { name: "ok.txt", data: "x" },
        { name: "../evil.txt", data: "pwned" },
      ]),
      "abs.zip": rawZip([
        { name: "ok.txt", data: "x" },
        { name: "/tmp/evil.txt", data: "pwned" },
      ]),
      "link.zip": rawZip([
        { name: "ok.txt", data: "x" },
        { name: "l", data: "/etc/passwd", mode: 0o120777 },
      ]),
      "many.zip": rawZip(Array.from({ length: 10_001 }, (_, n) => ({ name: `f${n}`, data: "" }))),
    };
    const bomb = rawZip([{ name: "big.bin", data: "x".repeat(1024) }]);
    const central = bomb.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bomb.writeUInt32LE(200 * 1024 * 1024, central + 24);
    hostile["bomb.zip"] = bomb;
    for (const [name, bytes] of Object.entries(hostile)) await writeFile(path.join(s.root, name), bytes);
    const before = await tree(s.root);
    const reasons: Record<string, string> = {};
    for (const name of Object.keys(hostile)) {
      const run = await s.run(archiveTool, { action: "extract", path: name, to: "out" });
      expect(run.error?.code, name).toBe("INVALID_INPUT");
      reasons[name] = String(run.llm);
    }
    expect(reasons["link.zip"]).toMatch(/symbolic link/);
    expect(reasons["bomb.zip"]).toMatch(/size mismatch|unpacks to more than 100 MB/);
    expect(reasons["many.zip"]).toMatch(/more than 10000 files/);
    expect(reasons["climb.zip"]).toMatch(/refused/);
    expect(reasons["abs.zip"]).toMatch(/refused/);
    expect(await tree(s.root)).toEqual(before);
    await expect(lstat(path.join(s.root, "..", "evil.txt"))).rejects.toThrow();
  });

  it("refuses hostile tars whole: climbing and absolute names, symbolic and hard links, a FIFO, a gzip bomb", async () => {
    const s = await session();
    const ok = { name: "ok.txt", data: "x" };
    const hostile: Record<string, Buffer> = {
      "climb.tar": rawTar([ok, { name: "a/../../evil.txt", data: "pwned" }]),
      "abs.tar": rawTar([ok, { name: "/tmp/evil.txt", data: "pwned" }]),
      "symlink.tar": rawTar([ok, { name: "l", type: "2", linkname: "/etc/passwd" }]),
      "hardlink.tar": rawTar([ok, { name: "h", type: "1", linkname: "../ws-outside/secret" }]),
      "fifo.tar": rawTar([ok, { name: "p", type: "6" }]),
      "link-then-write.tgz": gzipSync(
        rawTar([
          { name: "d", type: "2", linkname: "../ws-outside" },
          { name: "d/x", data: "pwned" },
        ]),
      ),
      "bomb.tar.gz": await gzipBomb(120),
    };
    for (const [name, bytes] of Object.entries(hostile)) await writeFile(path.join(s.root, name), bytes);
    const before = await tree(s.root);
    const reasons: Record<string, string> = {};
    for (const name of Object.keys(hostile)) {
      const run = await s.run(archiveTool, { action: "extract", path: name, to: "out" });
      expect(run.error?.code, name).toBe("INVALID_INPUT");
      reasons[name] = String(run.llm);
    }
    expect(reasons["climb.tar"]).toMatch(/climbs out/);
    expect(reasons["abs.tar"]).toMatch(/absolute path/);
    expect(reasons["symlink.tar"]).toMatch(/a link \(l\)/);
    expect(reasons["hardlink.tar"]).toMatch(/a link \(h\)/);
    expect(reasons["fifo.tar"]).toMatch(/FIFO entry/);
    expect(reasons["link-then-write.tgz"]).toMatch(/a link \(d\)/);
    expect(reasons["bomb.tar.gz"]).toMatch(/unpacks to more than 100 MB/);
    expect(await tree(s.root)).toEqual(before);
    expect(await readdir(s.outside)).toEqual([]);
  }, 30_000);

  it("refuses an archive that is not one, a path outside, a link to one outside, a FIFO, and a destination outside", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "notes.zip"), "just text");
    expect((await s.run(archiveTool, { action: "list", path: "notes.zip" })).llm).toMatch(/not a zip file/);
    await writeFile(path.join(s.root, "plain.txt"), "hello");
    expect((await s.run(archiveTool, { action: "list", path: "plain.txt" })).llm).toMatch(
      /is not a zip or tar archive/,
    );
    await writeFile(path.join(s.outside, "secret.tar"), rawTar([{ name: "secret", data: "s" }]));
    expect((await s.run(archiveTool, { action: "list", path: "../ws-outside/secret.tar" })).error?.code).toBe(
      "OUTSIDE_WORKSPACE",
    );
    await symlink(path.join(s.outside, "secret.tar"), path.join(s.root, "link.tar"));
    const viaLink = await s.run(archiveTool, { action: "list", path: "link.tar" });
    expect(viaLink.error).toBeDefined();
    expect(viaLink.llm).not.toContain("secret,");
    execFileSync("mkfifo", [path.join(s.root, "pipe.tar")]);
    expect((await s.run(archiveTool, { action: "list", path: "pipe.tar" })).error?.code).toBe("NOT_A_FILE");
    await writeFile(path.join(s.root, "fine.tar"), rawTar([{ name: "a.txt", data: "a" }]));
    const out = await s.run(archiveTool, { action: "extract", path: "fine.tar", to: "../ws-outside/dropped" });
    expect(out.error?.code).toBe("OUTSIDE_WORKSPACE");
    await symlink(s.outside, path.join(s.root, "escape"));
    const throughLink = await s.run(archiveTool, { action: "extract", path: "fine.tar", to: "escape" });
    expect(throughLink.error).toBeDefined();
    expect(await readdir(s.outside)).toEqual(["secret.tar"]);
  });
});
