import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { createSandbox } from "@/server/sandbox/sandbox";
import { launchCommand } from "./launch";
import type { LanguageServerSpec } from "./registry";

// `{workspaceOr:NAME}` looks for the workspace's own node_modules/NAME, as root, with a NAME a
// project's admin writes in a language plugin: a climb or a link out of the workspace made the
// answer (the workspace's path or the bundled one) say whether a host file exists.

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function setup() {
  const base = await mkdtemp(path.join(os.tmpdir(), "tandem-workspace-or-"));
  made.push(base);
  const root = path.join(base, "ws");
  const host = path.join(base, "host-package");
  await mkdir(path.join(root, "node_modules"), { recursive: true });
  await mkdir(host);
  await writeFile(path.join(host, "package.json"), "{}");
  return { root, host };
}

const sandbox = createSandbox({ host: { mode: "none", masks: [], perProjectUid: false, limits: null } });

function filled(root: string, name: string): string {
  const spec: LanguageServerSpec = {
    id: "probe",
    languages: ["typescript"],
    extensions: {},
    packages: ["typescript"],
    command: ["node", `{workspaceOr:${name}}`],
  };
  try {
    return launchCommand({ spec, workspaceRoot: root, sandbox, memoryMb: 64 }).command.args.join(" ");
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

it("reports a name that climbs out of the workspace as absent", async () => {
  const { root, host } = await setup();
  // node_modules/../../host-package is the host folder, which has a package.json.
  const seen = filled(root, "../../host-package");
  expect(seen).not.toContain(root);
  expect(seen).not.toContain(host);
});

it("reports a workspace package that is a link to a host folder as absent", async () => {
  const { root, host } = await setup();
  await symlink(host, path.join(root, "node_modules", "typescript"));
  const seen = filled(root, "typescript");
  expect(seen).not.toContain(root);
  expect(seen).toContain(path.join("node_modules", "typescript"));
});

it("still finds the workspace's own package", async () => {
  const { root } = await setup();
  await mkdir(path.join(root, "node_modules", "typescript"));
  await writeFile(path.join(root, "node_modules", "typescript", "package.json"), "{}");
  expect(filled(root, "typescript")).toContain(path.join(root, "node_modules", "typescript"));
});
