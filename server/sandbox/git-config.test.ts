import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { sandboxGitConfig } from "./git-config";

it("trusts exactly the workspace's root and /workspace, where the sandbox binds it too, whatever its name holds", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tandem-gitconfig-"));
  try {
    const root = '/data/work spaces/a"b\\c\td\n[core]\n\tpager = touch /tmp/x';
    const file = path.join(dir, "gitconfig");
    writeFileSync(file, sandboxGitConfig(root));
    const read = (key: string) =>
      execFileSync("git", ["config", "--file", file, "--get-all", key], { encoding: "utf8" });
    expect(read("safe.directory")).toBe(`${root}\n/workspace\n`);
    expect(() => read("core.pager")).toThrow();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
