import { mkdir, readdir, symlink } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { Workspace } from "@/server/workspace";
import { useTempDirs } from "@/server/test/temp-dirs";
import { workspaceOutputStore } from "./output-store";

const tempDir = useTempDirs();

it("keeps cut outputs in the workspace, and writes nothing through a .tandem a member made a link to a host folder", async () => {
  const workspace = await Workspace.open(await tempDir());
  const saved = await workspaceOutputStore(workspace, "s1").save("grep", "all of it");
  expect(saved).toMatch(/^\.tandem\/tool-output\/s1\//);

  const hostile = await Workspace.open(await tempDir());
  const host = await tempDir(); // stands for a root-only host folder
  await mkdir(path.join(host, "tool-output"));
  await symlink(host, path.join(hostile.root, ".tandem"));
  await expect(workspaceOutputStore(hostile, "s1").save("grep", "planted")).rejects.toThrow();
  expect(await readdir(host)).toEqual(["tool-output"]);
  expect(await readdir(path.join(host, "tool-output"))).toEqual([]);
});
