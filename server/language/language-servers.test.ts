import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os, { getPriority } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { BACKGROUND_NICE } from "@/server/sandbox/limits";
import { processTreePids } from "@/server/terminal/process-tree";
import { testSandbox } from "@/server/test/sandbox";
import { Workspace } from "@/server/workspace";
import { createLanguageServers, type LanguageServers } from "./language-servers";
import { uriOfPath } from "./documents";
import type { ProjectLanguage } from "./project-language";

// Against the real servers (typescript-language-server with the bundled typescript, pyright),
// each inside the sandbox when bubblewrap works here. One TypeScript server serves the whole file.

let servers: LanguageServers;
let root: string;
let workspace: Workspace;
let outside: string;
let ts: ProjectLanguage;
let sandboxed: boolean;

const files: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { strict: true, target: "es2022", module: "esnext", moduleResolution: "bundler", noEmit: true },
  }),
  "src/shapes.ts": "export function area(width: number, height: number): number {\n  return width * height;\n}\n",
  "src/a.ts": 'import { area } from "./shapes";\nexport const small = area(1, 2);\n',
  "src/b.ts": 'import { area } from "./shapes";\nexport const large = area(10, 20);\n',
  "src/broken.ts": 'export const count: number = "three";\n',
  "src/peek.ts": 'import { secret } from "../../outside-lsp/secret";\nexport const seen: string = secret;\n',
  "app.py": "def greet(name: str) -> str:\n    return 'hi ' + name\n\ngreet(42)\n",
};

beforeAll(async () => {
  const base = await mkdtemp(path.join(os.tmpdir(), "tandem-lsp-"));
  root = path.join(base, "project");
  outside = path.join(base, "outside-lsp");
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(outside, "secret.ts"), 'export const secret = "hunter2";\n');
  sandboxed = await bwrapAvailable();
  servers = createLanguageServers({ sandbox: testSandbox(sandboxed ? "bwrap" : "none"), baseBackoffMs: 100 });
  workspace = await Workspace.open(root);
  ts = servers.forProject("p1", workspace);
}, 60_000);

afterAll(async () => {
  await servers?.dispose();
  if (root) await rm(path.dirname(root), { recursive: true, force: true });
});

describe("TypeScript through typescript-language-server", () => {
  it("reports a type error in a file", async () => {
    const problems = await ts.problems("src/broken.ts");
    expect(problems).toEqual([
      expect.objectContaining({ path: "src/broken.ts", line: 1, severity: "error", code: 2322 }),
    ]);
    expect(problems[0]!.message).toContain("'string' is not assignable to type 'number'");
  }, 60_000);

  it("goes to a definition in another file", async () => {
    const places = await ts.definition("src/a.ts", 2, 22);
    expect(places).toEqual([expect.objectContaining({ path: "src/shapes.ts", line: 1, column: 17 })]);
  }, 30_000);

  it("finds references and renames across three files", async () => {
    const references = await ts.references("src/shapes.ts", 1, 17);
    expect(new Set(references.map((r) => r.path))).toEqual(new Set(["src/shapes.ts", "src/a.ts", "src/b.ts"]));
    const edits = await ts.renameEdits("src/shapes.ts", 1, 17, "surface");
    expect([...edits.keys()].sort()).toEqual(["src/a.ts", "src/b.ts", "src/shapes.ts"]);
    expect(edits.get("src/a.ts")!.every((e) => e.newText === "surface")).toBe(true);
  }, 30_000);

  it("lists the symbols of a file and of the workspace", async () => {
    expect(await ts.documentSymbols("src/shapes.ts")).toEqual([
      expect.objectContaining({ name: "area", kind: "function", line: 1 }),
    ]);
    const found = await ts.workspaceSymbols("area");
    expect(found).toContainEqual(expect.objectContaining({ name: "area", path: "src/shapes.ts" }));
  }, 30_000);

  it("reports only the errors a change introduced", async () => {
    const before = await ts.errorsBefore(["src/a.ts"]);
    await writeFile(
      path.join(root, "src/a.ts"),
      'import { area } from "./shapes";\nexport const small = area(1, "2");\nexport const n: string = 3;\n',
    );
    const introduced = await ts.newErrors(before);
    expect(introduced.map((p) => p.line).sort()).toEqual([2, 3]);
    await writeFile(path.join(root, "src/a.ts"), files["src/a.ts"]!);
    expect(await ts.newErrors(await ts.errorsBefore(["src/a.ts"]))).toEqual([]);
  }, 60_000);

  it("cannot read files outside the workspace", async ({ skip }) => {
    if (!sandboxed) skip();
    const problems = await ts.problems("src/peek.ts");
    expect(problems).toContainEqual(expect.objectContaining({ line: 1, code: 2307 }));
  }, 30_000);

  it("reads the files the agent and a rename ask about through the workspace, never through a link leading out", async () => {
    await symlink(path.join(outside, "secret.ts"), path.join(root, "src/linked.ts"));
    try {
      await expect(ts.documentSymbols("src/linked.ts")).rejects.toThrow(/outside the workspace/);
      await expect(ts.renameEdits("src/linked.ts", 1, 14, "exposed")).rejects.toThrow(/outside the workspace/);
      expect(servers.hub("p1", workspace, "typescript").documentOf(uriOfPath(root, "src/linked.ts"))).toBeUndefined();
    } finally {
      await rm(path.join(root, "src/linked.ts"));
    }
  }, 30_000);

  it("trusts only editors with edit rights with a document's text", async () => {
    const hub = servers.hub("p1", workspace, "typescript");
    const uri = uriOfPath(root, "src/broken.ts");
    const viewer = hub.attach({ id: "viewer", send: () => undefined, mayEdit: () => false });
    const seq = hub.diagnosticsSeq;
    viewer.receive({
      jsonrpc: "2.0",
      method: "textDocument/didOpen",
      params: {
        textDocument: { uri, languageId: "typescript", version: 1, text: "export const count: number = 3;\n" },
      },
    } as never);
    viewer.receive({
      jsonrpc: "2.0",
      method: "textDocument/didChange",
      params: { textDocument: { uri, version: 2 }, contentChanges: [{ text: "export const count = 3;\n" }] },
    } as never);
    await hub.waitForDiagnostics(uri, seq, { timeoutMs: 3_000 });
    expect(hub.documentOf(uri)?.text).toBe(files["src/broken.ts"]);
    expect((await ts.problems("src/broken.ts")).map((p) => p.code)).toEqual([2322]);
    viewer.detach();
  }, 30_000);

  it("analyses in the background: the server and its tsserver yield the CPU", async () => {
    await ts.problems("src/broken.ts");
    const hub = servers.hub("p1", workspace, "typescript");
    // Field 19 of /proc/<pid>/stat is the niceness; with bubblewrap the hub's own pid is bwrap's.
    const processes = processTreePids(hub.pid!).map((pid) => ({
      command: readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "),
      nice: Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[16]),
    }));
    const analysing = processes.filter(
      (p) => /typescript-language-server|tsserver/.test(p.command) && !p.command.includes("bwrap"),
    );
    expect(analysing.length).toBeGreaterThanOrEqual(2);
    for (const p of analysing) expect(p.nice, p.command).toBe(Math.min(19, getPriority() + BACKGROUND_NICE));
  });

  it("restarts a crashed server, and the documents come back", async () => {
    const hub = servers.hub("p1", workspace, "typescript");
    const uri = uriOfPath(root, "src/broken.ts");
    expect(hub.state).toBe("running");
    const seq = hub.diagnosticsSeq;
    hub.crash();
    await expect.poll(() => hub.restarts, { timeout: 10_000 }).toBe(1);
    // Meanwhile an editor's request gets a prompt refusal, never a hang.
    const answers: unknown[] = [];
    const editor = hub.attach({ id: "editor", send: (message) => answers.push(message) });
    if (hub.state !== "running") {
      editor.receive({
        jsonrpc: "2.0",
        id: 7,
        method: "textDocument/hover",
        params: { textDocument: { uri }, position: { line: 0, character: 14 } },
      } as never);
      await expect.poll(() => answers.length, { timeout: 1_000 }).toBe(1);
      expect(answers[0]).toMatchObject({ id: 7, error: { message: expect.stringMatching(/restarting/) } });
    }
    editor.detach();
    await expect.poll(() => hub.state, { timeout: 30_000 }).toBe("running");
    const again = await hub.waitForDiagnostics(uri, seq, { quietMs: 1_500, timeoutMs: 30_000 });
    expect(again?.map((d) => d.code)).toEqual([2322]);
  }, 60_000);
});

describe("shutting down", () => {
  // A Ctrl+C on `npm start`, or a service manager's SIGTERM, reaches the language servers with the
  // host, and they may exit before the host stops them: that is not a crash to restart from.

  /** A TypeScript server of its own (restart backoff `backoffMs`), and what its hub logs. */
  async function withOwnServer(
    project: string,
    backoffMs: number,
    run: (own: LanguageServers, hub: ReturnType<LanguageServers["hub"]>) => Promise<void>,
  ) {
    const lines: string[] = [];
    const own = createLanguageServers({
      sandbox: testSandbox(sandboxed ? "bwrap" : "none"),
      baseBackoffMs: backoffMs,
      log: (line) => lines.push(line),
    });
    try {
      const hub = own.hub(project, workspace, "typescript");
      await hub.start();
      await run(own, hub);
      await new Promise((resolve) => setTimeout(resolve, backoffMs + 500)); // past the restart's backoff
      expect(hub.state).toBe("stopped");
      expect(hub.restarts).toBe(0);
      expect(hub.pid).toBeUndefined();
      expect(lines.filter((line) => line.includes("restarting"))).toEqual([]);
    } finally {
      await own.dispose();
    }
  }

  it("does not restart a server that exits once the host is shutting down", async () => {
    await withOwnServer("p2", 50, async (own, hub) => {
      const pid = hub.pid!;
      own.shuttingDown();
      process.kill(pid, "SIGTERM"); // as the signal to the process group does
      await expect.poll(() => hub.pid, { timeout: 10_000 }).toBeUndefined();
    });
  }, 60_000);

  it("neither announces nor makes a restart when the exit reaches the host just before its own signal", async () => {
    await withOwnServer("p3", 1_000, async (own, hub) => {
      process.kill(hub.pid!, "SIGTERM");
      await expect.poll(() => hub.state, { timeout: 10_000 }).toBe("restarting");
      own.shuttingDown();
    });
  }, 60_000);
});

describe("Python through pyright", () => {
  it("checks a Python file", async () => {
    const problems = await servers.forProject("p1", workspace).problems("app.py");
    expect(problems).toContainEqual(expect.objectContaining({ path: "app.py", line: 4, severity: "error" }));
    expect(problems.find((p) => p.line === 4)!.message).toMatch(/"Literal\[42\]" is not assignable to "str"|int/);
  }, 60_000);
});
