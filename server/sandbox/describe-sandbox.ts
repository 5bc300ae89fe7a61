import { describeCgroups } from "./cgroups";
import type { SandboxHost } from "./launcher";
import { fdRelayProblem } from "./fd-relay";
import { describeLimits } from "./limits";

/** One line for start-up: which sandbox, network backend and limits are in force. */
export function describeSandbox(host: SandboxHost): string {
  if (host.unavailable) return "sandbox: UNAVAILABLE (bubblewrap does not work here; sandboxed commands are refused)";
  if (host.mode === "none")
    return "sandbox: NONE (TANDEM_SANDBOX=none: commands run unsandboxed with the server's network; no egress policy)";
  const identity = host.perProjectUid
    ? "a host uid per project"
    : "the server's uid (not root: masks are the protection)";
  const cgroups = host.limits && host.cgroups ? `; ${describeCgroups(host.cgroups, host.limits)}` : "";
  const problem = fdRelayProblem();
  const network = problem
    ? `network: NONE for every project (the egress proxy cannot run: ${problem})`
    : "network: egress proxy per project policy";
  return `sandbox: bubblewrap as ${identity}; ${network}; limits: ${describeLimits(host.limits, host.perProjectUid)}${cgroups}`;
}
