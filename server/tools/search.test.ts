import { mkdir, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { globTool } from "./glob";
import { grepTool } from "./grep";
import { lsTool } from "./ls";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();

async function tree() {
  const s = await session();
  const files: Record<string, string> = {
    ".gitignore": "dist/\n*.log\n",
    "src/app.ts": "export function main() {\n  return helper(1);\n}\n",
    "src/util/helper.ts": "export function helper(n: number) {\n  return n + 1;\n}\n",
    "src/app.test.ts": "import { main } from './app';\nmain();\n",
    "README.md": "# Demo\nCall main() to start.\n",
    "dist/app.js": "function main() {}\n",
    "debug.log": "main called\n",
    "-dash.txt": "x\n",
  };
  let t = 1_700_000_000;
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(s.root, name)), { recursive: true });
    await writeFile(path.join(s.root, name), content);
    t += 100;
    await utimes(path.join(s.root, name), t, t);
  }
  return s;
}

describe("glob", () => {
  it("lists matches newest first and honours .gitignore", async () => {
    const s = await tree();
    const run = await s.run(globTool, { pattern: "**/*.ts" });
    expect(run.llm).toBe("src/app.test.ts\nsrc/util/helper.ts\nsrc/app.ts");
    const js = await s.run(globTool, { pattern: "**/*.js" });
    expect(js.llm).toContain("No files match");
  });

  it("anchors a pattern without a slash to the search folder", async () => {
    const s = await tree();
    expect((await s.run(globTool, { pattern: "*.md" })).llm).toBe("README.md");
    expect((await s.run(globTool, { pattern: "*.ts" })).llm).toContain("No files match");
    expect((await s.run(globTool, { pattern: "*.ts", path: "src" })).llm).toBe("src/app.test.ts\nsrc/app.ts");
  });

  it("lists at most 100 with a count of the rest", async () => {
    const s = await session();
    await mkdir(path.join(s.root, "many"));
    for (let i = 0; i < 130; i++) await writeFile(path.join(s.root, "many", `f${i}.txt`), "");
    const run = await s.run(globTool, { pattern: "**/*.txt" });
    const text = run.llm as string;
    expect(text.split("\n").filter((l) => l.startsWith("many/"))).toHaveLength(100);
    expect(text).toContain("30 more files match");
    expect(run.meta?.count).toBe(130);
  });
});

describe("grep", () => {
  it("lists files with matches by default, ignoring .gitignore'd files", async () => {
    const s = await tree();
    const run = await s.run(grepTool, { pattern: "main" });
    expect(run.llm).toBe("README.md\nsrc/app.test.ts\nsrc/app.ts");
  });

  it("shows content with line numbers and context, and counts", async () => {
    const s = await tree();
    const content = await s.run(grepTool, {
      pattern: "return",
      output_mode: "content",
      path: "src",
      glob: "**/util/*.ts",
      "-B": 1,
    });
    expect(content.llm).toBe(
      "src/util/helper.ts-1-export function helper(n: number) {\nsrc/util/helper.ts:2:  return n + 1;",
    );
    const counts = await s.run(grepTool, { pattern: "MAIN", "-i": true, output_mode: "count", type: "ts" });
    expect(counts.llm).toBe("src/app.test.ts:2\nsrc/app.ts:1");
  });

  it("matches across lines with multiline, and takes patterns that start with a dash", async () => {
    const s = await tree();
    const run = await s.run(grepTool, { pattern: "main\\(\\) \\{.*?helper", multiline: true });
    expect(run.llm).toBe("src/app.ts");
    expect((await s.run(grepTool, { pattern: "-dash|^x$" })).llm).toBe("-dash.txt");
  });

  it("stops at head_limit with a note", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "big.txt"), "hit\n".repeat(1000));
    const run = await s.run(grepTool, { pattern: "hit", output_mode: "content" });
    const text = run.llm as string;
    expect(text.split("\n").filter((l) => l.includes(":hit"))).toHaveLength(250);
    expect(text).toContain("Stopped after 250 lines");
    const five = await s.run(grepTool, { pattern: "hit", output_mode: "content", head_limit: 5 });
    expect((five.llm as string).split("\n")[5]).toContain("Stopped after 5");
  });

  it("explains an invalid regex with INVALID_REGEX", async () => {
    const s = await tree();
    const run = await s.run(grepTool, { pattern: "foo(bar" });
    expect(run.error?.code).toBe("INVALID_REGEX");
    expect(run.llm).toMatch(/unclosed group/i);
    expect((await s.run(grepTool, { pattern: "x", type: "nosuchtype" })).error?.code).toBe("INVALID_INPUT");
  });

  it("reports no matches plainly", async () => {
    const s = await tree();
    expect((await s.run(grepTool, { pattern: "zzzz" })).llm).toContain("No matches");
  });
});

describe("ls", () => {
  it("lists folders first with type, size, time, permissions, and marks ignored entries", async () => {
    const s = await tree();
    const run = await s.run(lsTool, {});
    const lines = (run.llm as string).split("\n").slice(1);
    expect(lines[0]).toMatch(/^drwx.*dist\/ \(ignored\)$/);
    expect(lines[1]).toMatch(/^drwx.*src\/$/);
    expect(lines.find((l) => l.endsWith("debug.log (ignored)"))).toMatch(
      /^-rw.*12 B {2}2023-11-14 \d\d:\d\d {2}debug.log/,
    );
    expect(run.display.kind).toBe("table");
    expect((await s.run(lsTool, { path: "src/app.ts" })).error?.code).toBe("NOT_A_DIRECTORY");
  });
});
