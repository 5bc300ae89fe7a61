import { describe, expect, it } from "vitest";
import { sandboxReport, summarize } from "./test-summary.mjs";

// Shaped as vitest's and Playwright's JSON reporters write them.
const vitest = {
  numPassedTests: 5,
  numFailedTests: 1,
  testResults: [
    {
      name: "/repo/server/tools/shell.test.ts",
      status: "passed",
      assertionResults: [
        { status: "passed", fullName: "shell (sandbox: none) runs a command" },
        { status: "skipped", fullName: "[sandbox] shell (sandbox: bwrap) runs a command" },
      ],
    },
    {
      // Another helper's file: `describe.runIf(await bwrapAvailable())`, no marker in the name.
      name: "/repo/server/git/hooks.test.ts",
      status: "passed",
      assertionResults: [{ status: "skipped", fullName: "hooks run in the sandbox" }],
    },
    {
      name: "/repo/server/other.test.ts",
      status: "failed",
      assertionResults: [{ status: "skipped", fullName: "later" }],
    },
    { name: "/repo/server/broken.test.ts", status: "failed", assertionResults: [] },
  ],
};
const e2e = { stats: { expected: 3, unexpected: 0, flaky: 1, skipped: 2 } };
const sources: Record<string, string> = {
  "/repo/server/tools/shell.test.ts": 'import { describeSandboxed } from "@/server/test/sandbox-guard";',
  "/repo/server/git/hooks.test.ts": "describe.runIf(await bwrapAvailable())",
  "/repo/server/other.test.ts": "it.skip('later')",
};
const source = (file: string) => sources[file] ?? "";

describe("npm test's closing totals", () => {
  it("counts skipped sandbox tests as skipped on a developer's machine, and lists them", () => {
    const summary = summarize({ vitest, e2e, typesFailed: false, ci: false, source });
    expect(summary).toMatchObject({ passed: 9, failed: 2, skipped: 5 });
    expect(summary.sandboxSkipped.map((t) => t.name)).toEqual([
      "[sandbox] shell (sandbox: bwrap) runs a command",
      "hooks run in the sandbox",
    ]);
    const report = sandboxReport(summary.sandboxSkipped, { ci: false }).join("\n");
    expect(report).toContain("SKIPPED: 2 tests that prove the sandbox's isolation");
    expect(report).toContain("apt-get install bubblewrap");
  });

  it("fails skipped sandbox tests in CI, so CI always proves the sandbox", () => {
    const summary = summarize({ vitest, e2e, typesFailed: true, ci: true, source });
    expect(summary).toMatchObject({ passed: 9, failed: 5, skipped: 3 });
    expect(sandboxReport(summary.sandboxSkipped, { ci: true }).join("\n")).toMatch(
      /FAILED: 2 tests[\s\S]*CI must prove the sandbox/,
    );
  });

  it("counts a runner that wrote no report as a failure, and says nothing of the sandbox when nothing was skipped", () => {
    const summary = summarize({ typesFailed: false, ci: true, source });
    expect(summary).toMatchObject({ passed: 0, failed: 2, skipped: 0 });
    expect(sandboxReport(summary.sandboxSkipped, { ci: true })).toEqual([]);
  });
});
