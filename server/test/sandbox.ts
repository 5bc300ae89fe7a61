import { createSandbox, type Sandbox } from "@/server/sandbox/sandbox";
import type { SandboxMode } from "@/server/sandbox/launcher";

/** A sandbox for tests: no masks, no identity switch, no limits, no network. */
export function testSandbox(mode: SandboxMode): Sandbox {
  return createSandbox({ host: { mode, masks: [], perProjectUid: false, limits: null } });
}
