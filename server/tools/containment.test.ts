import { mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Tool } from "./define-tool";
import { editTool } from "./edit";
import { globTool } from "./glob";
import { grepTool } from "./grep";
import { lsTool } from "./ls";
import { multiEditTool } from "./multi-edit";
import { readFileTool } from "./read-file";
import { readManyFilesTool } from "./read-many-files";
import { useToolSessions, type TestSession } from "@/server/test/tool-session";
import { writeFileTool } from "./write-file";

const session = useToolSessions();

/** Each file tool with an input that reaches `p` (a file for file tools, a folder for folder tools). */
const FILE_TOOLS: [string, Tool, (p: string) => unknown][] = [
  ["read_file", readFileTool, (p) => ({ path: p })],
  ["read_many_files", readManyFilesTool, (p) => ({ paths: [p] })],
  ["write_file", writeFileTool, (p) => ({ path: p, content: "pwned" })],
  ["edit", editTool, (p) => ({ path: p, old_string: "", new_string: "pwned" })],
  ["edit (existing)", editTool, (p) => ({ path: p, old_string: "secret", new_string: "pwned" })],
  ["multi_edit", multiEditTool, (p) => ({ edits: [{ path: p, old_string: "secret", new_string: "pwned" }] })],
  ["ls", lsTool, (p) => ({ path: p })],
  ["glob", globTool, (p) => ({ pattern: "**/*", path: p })],
  ["grep", grepTool, (p) => ({ pattern: "secret", path: p, output_mode: "content" })],
];

async function escapeSetup(): Promise<TestSession & { attempts: Record<string, string> }> {
  const s = await session();
  await writeFile(path.join(s.outside, "secret.txt"), "secret\n");
  await symlink(path.join(s.outside, "secret.txt"), path.join(s.root, "link-file.txt"));
  await symlink(s.outside, path.join(s.root, "link-dir"));
  await mkdir(path.join(s.root, "sub"));
  return {
    ...s,
    attempts: {
      "dot-dot": "../ws-outside/secret.txt",
      "dot-dot inside a path": "sub/../../ws-outside/secret.txt",
      "absolute outside": path.join(s.outside, "secret.txt"),
      "symlinked file leading out": "link-file.txt",
      "symlinked folder leading out": "link-dir/secret.txt",
      "symlinked folder itself": "link-dir",
      "sibling prefix": `${s.root}-outside/secret.txt`,
      "NUL byte": "secret.txt\u0000.png",
      tilde: "~/secret.txt",
      "tilde user": "~root/.bashrc",
    },
  };
}

describe("path containment", () => {
  for (const [label, tool, inputFor] of FILE_TOOLS) {
    it(`${label} refuses every way out of the workspace`, async () => {
      const s = await escapeSetup();
      for (const [how, attempt] of Object.entries(s.attempts)) {
        const run = await s.run(tool, inputFor(attempt));
        const leaked = JSON.stringify(run.llm).includes("secret\\n") || JSON.stringify(run.llm).includes(":secret");
        expect({ how, code: run.error?.code, leaked }).toEqual({
          how,
          code: expect.stringMatching(/^(OUTSIDE_WORKSPACE|INVALID_PATH|INVALID_INPUT)$/),
          leaked: false,
        });
      }
      expect(await readFile(path.join(s.outside, "secret.txt"), "utf8")).toBe("secret\n");
      expect(await readdir(s.outside)).toEqual(["secret.txt"]);
    });
  }

  it("search tools do not follow a symlinked folder out of the workspace", async () => {
    const s = await escapeSetup();
    const grep = await s.run(grepTool, { pattern: "secret", output_mode: "content" });
    expect(grep.llm).not.toContain("secret.txt:");
    const glob = await s.run(globTool, { pattern: "**/*.txt" });
    expect(glob.llm).not.toContain("link-dir/secret.txt");
  });
});
