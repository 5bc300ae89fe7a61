// Types for scripts/test-summary.mjs, which `npm test` runs with plain Node.
export const SANDBOX_SUITE: string;
export interface SkippedSandboxTest {
  file: string;
  name: string;
}
export function summarize(input: {
  vitest?: {
    numPassedTests: number;
    numFailedTests: number;
    testResults: Array<{ name: string; status: string; assertionResults: Array<{ status: string; fullName: string }> }>;
  };
  e2e?: { stats: { expected: number; unexpected: number; flaky: number; skipped: number } };
  typesFailed: boolean;
  ci: boolean;
  source: (file: string) => string;
}): { passed: number; failed: number; skipped: number; sandboxSkipped: SkippedSandboxTest[] };
export function sandboxReport(
  sandboxSkipped: SkippedSandboxTest[],
  options: { ci: boolean; relative?: (file: string) => string },
): string[];
