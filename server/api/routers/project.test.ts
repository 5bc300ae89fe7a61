import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createTestServices } from "@/server/test/services";

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
let importRoot: string;
let caller: ReturnType<typeof createCaller>;

beforeAll(async () => {
  importRoot = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-import-"));
  await fs.mkdir(path.join(importRoot, "app", "src"), { recursive: true });
  await fs.writeFile(path.join(importRoot, "app", "src", "main.ts"), "export const answer = 42;\n");
  env = await createTestServices({ importRoots: [importRoot] });
  caller = createCaller(env.context(await env.createUser()));
});
afterAll(async () => {
  await env.dispose();
  await fs.rm(importRoot, { recursive: true, force: true });
});

describe("project router", () => {
  it("creates an empty workspace, lists, renames and deletes it with its files", async () => {
    const project = await caller.project.create({ name: "  Demo  " });
    expect(project.name).toBe("Demo");
    const dir = env.services.files.pathOf(project.id);
    expect((await fs.readdir(dir)).length).toBe(0);
    expect((await caller.project.list()).map((p) => p.id)).toContain(project.id);

    const renamed = await caller.project.rename({ projectId: project.id, name: "Renamed" });
    expect(renamed.name).toBe("Renamed");
    expect((await caller.project.get({ projectId: project.id })).role).toBe("owner");

    await caller.project.delete({ projectId: project.id });
    expect(existsSync(dir)).toBe(false);
    await expect(caller.project.get({ projectId: project.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("imports a folder an admin allowed", async () => {
    const project = await caller.project.create({ name: "Imported", importPath: path.join(importRoot, "app") });
    const copied = await fs.readFile(path.join(env.services.files.pathOf(project.id), "src", "main.ts"), "utf8");
    expect(copied).toBe("export const answer = 42;\n");
  });

  it("refuses to import from anywhere else and leaves no project behind", async () => {
    const before = (await caller.project.list()).length;
    await expect(caller.project.create({ name: "Sneaky", importPath: "/etc" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("not allowed"),
    });
    await expect(caller.project.create({ name: "Sneaky", importPath: `${importRoot}-evil` })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(
      caller.project.create({ name: "Dots", importPath: path.join(importRoot, "..") }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    expect((await caller.project.list()).length).toBe(before);
  });

  it("rejects an empty name", async () => {
    await expect(caller.project.create({ name: "   " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
