import { mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { expectCode, useTempDirs } from "@/server/test/temp-dirs";
import { Workspace } from "./workspace";

const tempDir = useTempDirs();

let base: string;
let ws: Workspace;

beforeEach(async () => {
  base = await tempDir();
  const root = path.join(base, "p");
  await mkdir(path.join(root, "src"), { recursive: true });
  await writeFile(path.join(root, "a.txt"), "inside");
  await mkdir(path.join(base, "p-evil"));
  await writeFile(path.join(base, "p-evil", "secret.txt"), "sibling secret");
  await mkdir(path.join(base, "outside"));
  await writeFile(path.join(base, "outside", "secret.txt"), "outside secret");
  await symlink(path.join(base, "outside", "secret.txt"), path.join(root, "out-file"));
  await symlink(path.join(base, "outside"), path.join(root, "out-dir"));
  await symlink("../outside", path.join(root, "out-dir-relative"));
  await symlink(path.join(base, "outside", "new.txt"), path.join(root, "dangling-out"));
  await symlink("a.txt", path.join(root, "in-link"));
  await symlink("src", path.join(root, "in-dir"));
  ws = await Workspace.open(root);
});

function escapes(): string[] {
  return [
    "..",
    "../outside/secret.txt",
    "src/../../outside/secret.txt",
    path.join(base, "outside", "secret.txt"),
    path.join(base, "p-evil", "secret.txt"),
    path.join(base, "p-evil"),
    "../p-evil/secret.txt",
    "/etc/passwd",
    "out-file",
    "out-dir",
    "out-dir/secret.txt",
    "out-dir/new.txt",
    "out-dir-relative/secret.txt",
    "dangling-out",
    "a\0b",
    "~",
    "~/secret.txt",
    "~root/.bashrc",
  ];
}

const REFUSED = ["OUTSIDE_WORKSPACE", "INVALID_PATH"] as const;

async function outsideUntouched(): Promise<void> {
  expect(await readFile(path.join(base, "outside", "secret.txt"), "utf8")).toBe("outside secret");
  expect(await readFile(path.join(base, "p-evil", "secret.txt"), "utf8")).toBe("sibling secret");
  expect((await readdir(path.join(base, "outside"))).sort()).toEqual(["secret.txt"]);
  expect((await readdir(path.join(base, "p-evil"))).sort()).toEqual(["secret.txt"]);
  expect((await readdir(base)).sort()).toEqual(["outside", "p", "p-evil"]);
  expect(await readFile(path.join(ws.root, "a.txt"), "utf8")).toBe("inside");
}

describe("path containment", () => {
  const methods: Record<string, (bad: string) => Promise<unknown>> = {
    resolve: (bad) => ws.resolve(bad),
    stat: (bad) => ws.stat(bad),
    list: (bad) => ws.list(bad),
    read: (bad) => ws.read(bad),
    readBytes: (bad) => ws.readBytes(bad),
    write: (bad) => ws.write(bad, "pwned"),
    "write (createParents)": (bad) => ws.write(bad, "pwned", { createParents: true }),
    create: (bad) => ws.create(bad, "pwned", { createParents: true }),
    mkdir: (bad) => ws.mkdir(bad),
    "rename (from)": (bad) => ws.rename(bad, "moved"),
    "rename (to)": (bad) => ws.rename("a.txt", bad, { createParents: true }),
    delete: (bad) => ws.delete(bad),
  };

  for (const [name, call] of Object.entries(methods)) {
    it(`${name} refuses every escape and leaves outside files alone`, async () => {
      for (const bad of escapes()) {
        const error = await expectCode(call(bad), [...REFUSED]);
        expect(error.message.length).toBeGreaterThan(20);
      }
      await outsideUntouched();
    });
  }

  it("explains what to do instead", async () => {
    const error = await expectCode(ws.read("../outside/secret.txt"), "OUTSIDE_WORKSPACE");
    expect(error.message).toMatch(/relative to the workspace root/);
    const home = await expectCode(ws.read("~/notes.md"), "INVALID_PATH");
    expect(home.message).toMatch(/home folder/);
  });

  it("refuses a sibling folder that shares the root's name as a prefix", async () => {
    await expectCode(ws.resolve(`${ws.root}-evil/secret.txt`), "OUTSIDE_WORKSPACE");
  });

  it("accepts relative, absolute-inside and symlinked-inside paths", async () => {
    expect((await ws.resolve("src/../a.txt")).path).toBe("a.txt");
    expect((await ws.resolve(path.join(ws.root, "a.txt"))).path).toBe("a.txt");
    expect((await ws.resolve("./a.txt/")).path).toBe("a.txt");
    expect((await ws.resolve("")).path).toBe("");
    const link = await ws.resolve("in-link");
    expect(link.path).toBe("a.txt");
    expect(link.requested).toBe("in-link");
    expect((await ws.resolve("in-dir/new/deep.ts")).path).toBe("src/new/deep.ts");
    expect((await ws.resolve("./~notes.md")).path).toBe("~notes.md");
  });

  it("accepts /workspace, where sandboxed commands see the root, and nothing it climbs out to", async () => {
    expect((await ws.resolve("/workspace/src/../a.txt")).path).toBe("a.txt");
    expect(await ws.read("/workspace/a.txt")).toMatchObject({ content: "inside" });
    await expectCode(ws.resolve("/workspace/../etc/passwd"), "OUTSIDE_WORKSPACE");
    await expectCode(ws.read("/workspace/out-file"), [...REFUSED]);
    await expectCode(ws.resolve("/workspaces/a.txt"), "OUTSIDE_WORKSPACE");
  });

  it("accepts the root as it was spelled before realpath", async () => {
    const alias = path.join(base, "alias");
    await symlink(ws.root, alias);
    const viaAlias = await Workspace.open(alias);
    expect(viaAlias.root).toBe(ws.root);
    expect((await viaAlias.resolve(path.join(alias, "a.txt"))).path).toBe("a.txt");
  });

  it("writes through an inside symlink to its target and keeps the link", async () => {
    await ws.write("in-link", "changed");
    expect(await readFile(path.join(ws.root, "a.txt"), "utf8")).toBe("changed");
    expect((await ws.list("")).find((e) => e.name === "in-link")?.type).toBe("symlink");
  });

  it("deletes a symlink, not what it points to", async () => {
    await ws.delete("in-link");
    expect(await readFile(path.join(ws.root, "a.txt"), "utf8")).toBe("inside");
  });

  it("refuses to delete or rename the root", async () => {
    await expectCode(ws.delete(""), "INVALID_PATH");
    await expectCode(ws.delete("."), "INVALID_PATH");
    await expectCode(ws.delete(ws.root), "INVALID_PATH");
    await expectCode(ws.rename("", "x"), "INVALID_PATH");
  });

  it("reports a symlink loop as an invalid path", async () => {
    await symlink("loop-b", path.join(ws.root, "loop-a"));
    await symlink("loop-a", path.join(ws.root, "loop-b"));
    await expectCode(ws.read("loop-a"), "INVALID_PATH");
    await expectCode(ws.write("loop-a", "x"), "INVALID_PATH");
  });
});
