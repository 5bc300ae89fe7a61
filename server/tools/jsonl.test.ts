import { execFileSync } from "node:child_process";
import { symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useToolSessions } from "@/server/test/tool-session";
import { jsonlTool } from "./jsonl";

const session = useToolSessions();
const LOG = [
  { level: "info", ms: 12, user: { name: "ada" }, tags: ["a"] },
  { level: "error", ms: 900, user: { name: "bob" }, tags: ["b", "slow"] },
  "not json {",
  { level: "error", ms: 30, user: { name: "ada" } },
  "",
  { level: "warn", ms: 700 },
]
  .map((r) => (typeof r === "string" ? r : JSON.stringify(r)))
  .join("\n");

describe("jsonl", () => {
  it("lists records with their line numbers, filtered by field conditions, some fields only", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "app.jsonl"), LOG);
    const run = await s.run(jsonlTool, {
      path: "app.jsonl",
      filter: [
        { field: "level", op: "==", value: "error" },
        { field: "user.name", op: "==", value: "ada" },
      ],
      fields: ["ms", "user.name"],
    });
    expect(run.error).toBeUndefined();
    expect(run.llm).toBe(
      `1 of 4 records in 'app.jsonl' match. 1 line(s) are not JSON (line 3).\n4: {"ms":30,"user.name":"ada"}`,
    );
    const slow = await s.run(jsonlTool, {
      path: "app.jsonl",
      filter: [
        { field: "ms", op: ">=", value: 700 },
        { field: "tags", op: "contains", value: "slow" },
      ],
    });
    expect(slow.llm).toContain('2: {"level":"error","ms":900');
    expect(slow.meta).toMatchObject({ matches: 1, records: 4, malformed: 1 });
  });

  it("counts, pages, and checks conditions", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "app.jsonl"), LOG);
    const count = await s.run(jsonlTool, {
      path: "app.jsonl",
      count: true,
      filter: [{ field: "tags", op: "missing" }],
    });
    expect(count.llm).toBe("2 of 4 records in 'app.jsonl' match. 1 line(s) are not JSON (line 3).");
    const page = await s.run(jsonlTool, { path: "app.jsonl", limit: 1, offset: 1 });
    expect(page.llm).toContain("2: {");
    expect(page.llm).toContain("call again with offset=2");
    const bad = await s.run(jsonlTool, { path: "app.jsonl", filter: [{ field: "ms", op: ">" }] });
    expect(bad.error?.code).toBe("INVALID_INPUT");
    expect(bad.llm).toContain('">" on ms needs a value');
    const field = await s.run(jsonlTool, { path: "app.jsonl", filter: [{ field: "a..b", op: "exists" }] });
    expect(field.error?.code).toBe("INVALID_INPUT");
  });

  it("refuses a binary file, a path outside, a link out of the workspace and a FIFO", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "blob.jsonl"), Buffer.from([0, 1, 2, 0, 3]));
    expect((await s.run(jsonlTool, { path: "blob.jsonl" })).error?.code).toBe("BINARY_FILE");
    await writeFile(path.join(s.outside, "secret.jsonl"), '{"secret":1}\n');
    expect((await s.run(jsonlTool, { path: "../ws-outside/secret.jsonl" })).error?.code).toBe("OUTSIDE_WORKSPACE");
    await symlink(path.join(s.outside, "secret.jsonl"), path.join(s.root, "link.jsonl"));
    const linked = await s.run(jsonlTool, { path: "link.jsonl" });
    expect(linked.error).toBeDefined();
    expect(linked.llm).not.toContain("secret");
    execFileSync("mkfifo", [path.join(s.root, "pipe.jsonl")]);
    expect((await s.run(jsonlTool, { path: "pipe.jsonl" })).error?.code).toBe("NOT_A_FILE");
  });
});
