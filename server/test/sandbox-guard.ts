import { describe } from "vitest";
import { SANDBOX_SUITE } from "@/scripts/test-summary.mjs";
import { bwrapAvailable, type SandboxMode } from "@/server/sandbox/launcher";

// Tests that exist to prove the sandbox's isolation need bubblewrap; everything else runs in
// either mode. Where bubblewrap does not work, the sandbox suites are skipped and `npm test`
// (scripts/test.mjs) says so loudly; with CI=true a skipped sandbox test counts as a failure, so
// CI always proves the sandbox. scripts/test.mjs recognises a skipped test as a sandbox test by
// SANDBOX_SUITE ("[sandbox]") in its suite's name or by its file using this guard or
// bwrapAvailable().

/** Whether bubblewrap works on this machine (installed, and allowed by the container's policy). */
export const sandboxAvailable = await bwrapAvailable();

/** The strongest sandbox this machine has: for tests of something else that runs in it. */
export const sandboxMode: SandboxMode = sandboxAvailable ? "bwrap" : "none";

/** A suite that proves the sandbox: run under bubblewrap, skipped (and reported) without it. */
export function describeSandboxed(name: string, suite: () => void): void {
  describe.runIf(sandboxAvailable)(`${SANDBOX_SUITE} ${name}`, suite);
}
