// The totals `npm test` closes on, from vitest's and Playwright's JSON reports.
//
// Where bubblewrap does not work, the tests that prove the sandbox are skipped: a skipped vitest
// test whose suite name carries "[sandbox]" (server/test/sandbox-guard.ts puts it there), or any
// skipped test in a file that uses that guard or bwrapAvailable(). They are listed apart; with
// `ci` each of them counts as a failure instead of a skip, so CI always proves the sandbox.

/** Stands in front of every sandbox suite's name (server/test/sandbox-guard.ts). */
export const SANDBOX_SUITE = "[sandbox]";
const SANDBOX_SOURCE = /sandbox-guard|bwrapAvailable/;
const SKIPPED = new Set(["skipped", "pending", "todo"]);

/**
 * @param {{ vitest?: any, e2e?: any, typesFailed: boolean, ci: boolean, source: (file: string) => string }} input
 *   `vitest` and `e2e` are the parsed reports (undefined when a runner wrote none: a failure);
 *   `source` reads a test file, to tell whether it tests the sandbox.
 */
export function summarize({ vitest, e2e, typesFailed, ci, source }) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const sandboxSkipped = [];
  if (vitest) {
    passed += vitest.numPassedTests;
    failed += vitest.numFailedTests;
    // A file that fails to load has no failed tests of its own, but it is a failure.
    failed += vitest.testResults.filter((r) => r.status === "failed" && r.assertionResults.length === 0).length;
    for (const file of vitest.testResults) {
      const skips = file.assertionResults.filter((test) => SKIPPED.has(test.status));
      if (skips.length === 0) continue;
      const sandboxFile = SANDBOX_SOURCE.test(source(file.name));
      for (const test of skips) {
        if (sandboxFile || test.fullName.includes(SANDBOX_SUITE))
          sandboxSkipped.push({ file: file.name, name: test.fullName });
        else skipped += 1;
      }
    }
  } else failed += 1;
  if (e2e) {
    passed += e2e.stats.expected + e2e.stats.flaky;
    failed += e2e.stats.unexpected;
    skipped += e2e.stats.skipped;
  } else failed += 1;
  if (typesFailed) failed += 1;
  if (ci) failed += sandboxSkipped.length;
  else skipped += sandboxSkipped.length;
  return { passed, failed, skipped, sandboxSkipped };
}

/** The loud lines about skipped sandbox tests, or none. */
export function sandboxReport(sandboxSkipped, { ci, relative = (file) => file }) {
  if (sandboxSkipped.length === 0) return [];
  const banner = "!".repeat(100);
  return [
    banner,
    `${ci ? "FAILED" : "SKIPPED"}: ${sandboxSkipped.length} tests that prove the sandbox's isolation, because bubblewrap does not work here:`,
    ...sandboxSkipped.map((test) => `  - ${relative(test.file)}: ${test.name}`),
    "The other tests ran terminals and agent commands unsandboxed. To run these, install bubblewrap:",
    "  apt-get install bubblewrap     (the container must also allow it to create user namespaces)",
    ...(ci ? ["With CI=true a skipped sandbox test counts as a failure: CI must prove the sandbox."] : []),
    banner,
  ];
}
