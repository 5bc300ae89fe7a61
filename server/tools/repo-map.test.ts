import { symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoMapTool } from "./repo-map";
import { useLanguageServers, writeProject } from "@/server/test/language-project";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();
const languageFor = useLanguageServers();

const PROJECT = {
  "src/db.ts":
    "export class Database {\n  query(sql: string) { return sql; }\n}\nexport function connect(): Database { return new Database(); }\n",
  "src/users.ts":
    'import { connect, Database } from "./db";\nexport function findUser(id: string) { return connect().query(id); }\nexport function helperNobodyUses() {}\n',
  "src/orders.ts":
    'import { connect } from "./db";\nimport { findUser } from "./users";\nexport const listOrders = () => connect().query(String(findUser("1")));\n',
  "src/api.ts":
    'import { connect } from "./db";\nimport { listOrders } from "./orders";\nexport const routes = [connect, listOrders];\n',
  "tools/report.py": "from db import connect\n\ndef report():\n    return connect()\n",
};

describe("repo_map", () => {
  it("puts the most referenced definitions first, within the budget, and follows changes", async () => {
    const s = await session();
    await writeProject(s.root, PROJECT);
    const language = languageFor(s.ctx.workspace);
    const run = await s.run(repoMapTool, {}, { language });
    expect(run.error).toBeUndefined();
    const text = run.llm as string;
    expect(text.indexOf("src/db.ts:")).toBe(0);
    expect(text).toContain("4: function connect");
    expect(text).toContain("tools/report.py:\n  3: function report");
    expect(text.indexOf("connect")).toBeLessThan(text.indexOf("helperNobodyUses"));

    const many = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [
        `gen/module${i}.ts`,
        `export function generatedFunction${i}() {}\nexport class GeneratedClass${i} {}\n`,
      ]),
    );
    await writeProject(s.root, many);
    await language.filesChanged(Object.keys(many).map((file) => ({ type: "add" as const, path: file })));
    const small = await s.run(repoMapTool, { max_tokens: 256 }, { language });
    expect((small.llm as string).length).toBeLessThan(256 * 4 + 200);
    expect(small.llm).toMatch(/\((\d+) of 128 definitions/);
    expect(small.llm).toContain("src/db.ts:");

    await writeFile(path.join(s.root, "src/cache.ts"), "export function cacheEverything() {}\n");
    await language.filesChanged([{ type: "add", path: "src/cache.ts" }]);
    expect((await s.run(repoMapTool, { max_tokens: 8192 }, { language })).llm).toContain(
      "src/cache.ts:\n  1: function cacheEverything",
    );
    await language.filesChanged([{ type: "unlink", path: "src/cache.ts" }]);
    expect((await s.run(repoMapTool, { max_tokens: 8192 }, { language })).llm).not.toContain("cacheEverything");
  }, 30_000);

  it("centres on the files in focus", async () => {
    const s = await session();
    await writeProject(s.root, PROJECT);
    const language = languageFor(s.ctx.workspace);
    const run = await s.run(repoMapTool, { focus: ["src/api.ts"] }, { language });
    const text = run.llm as string;
    expect(text.indexOf("listOrders")).toBeLessThan(text.indexOf("findUser"));
    expect((await s.run(repoMapTool, { focus: ["../x.ts"] }, { language })).error?.code).toBe("OUTSIDE_WORKSPACE");
  }, 30_000);
});

// Issue 38 (8): a link in the workspace to a host file showed that file's definitions.
describe("repo_map and links", () => {
  it("never maps a file outside the workspace through a link, at the first build or after a change", async () => {
    const s = await session();
    await writeProject(s.root, PROJECT);
    const secret = path.join(s.outside, "host-only.ts");
    await writeFile(secret, "export function hostOnlySecretFunction() {}\nexport class HostOnlySecretClass {}\n", {
      mode: 0o600,
    });
    await symlink(secret, path.join(s.root, "src/linked.ts"));
    await symlink(s.outside, path.join(s.root, "src/linked-folder"));
    const language = languageFor(s.ctx.workspace);
    const first = await s.run(repoMapTool, { max_tokens: 8192 }, { language });
    expect(first.llm).toContain("src/db.ts:");
    expect(first.llm).not.toMatch(/HostOnlySecret|hostOnlySecret/);

    await symlink(secret, path.join(s.root, "src/later.ts"));
    await language.filesChanged([
      { type: "add", path: "src/later.ts" },
      { type: "add", path: "src/linked-folder/host-only.ts" },
      { type: "change", path: "src/linked.ts" },
    ]);
    expect((await s.run(repoMapTool, { max_tokens: 8192 }, { language })).llm).not.toMatch(
      /HostOnlySecret|hostOnlySecret/,
    );
  }, 30_000);
});
