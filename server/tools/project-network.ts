import { hostAllowed, type NetworkPolicy } from "@/lib/egress-policy";
import type { ToolContext } from "./define-tool";
import { ToolFailure } from "./result";

// What the server itself reaches on a project's behalf (web_fetch, `@` mentions of URLs,
// web_search) follows the project's network policy, as its sandboxed processes do: "off" is no
// network at all, "allow-list" only the listed hosts. The address check (ip-policy.ts) comes on top.

/** The project's policy in force, read at each call so a change applies at once. */
export async function projectNetwork(ctx: ToolContext): Promise<NetworkPolicy> {
  return ctx.fetchPolicy.projectNetwork ? ctx.fetchPolicy.projectNetwork(ctx.projectId) : ctx.sandbox.network;
}

export function networkOff(tool: string): ToolFailure {
  return new ToolFailure(
    "NETWORK_POLICY",
    `This project's network policy is off, so ${tool} reaches nothing for it (Tandem fetches, searches and connects nothing on the project's behalf). A project owner or admin can change the policy in the project settings (Network); until then, work with what is in the workspace.`,
  );
}

/** Why the project's policy refuses the server a connection to `hostname` for `tool`, or null. */
export function refusedByProject(policy: NetworkPolicy, hostname: string, tool: string): ToolFailure | null {
  if (policy.policy === "off") return networkOff(tool);
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (hostAllowed(policy, host)) return null;
  return new ToolFailure(
    "NETWORK_POLICY",
    `${host} is not on this project's network allow-list, so ${tool} does not reach it. A project owner or admin can allow it in the project settings (Network), or with the "Allow ${host}" card in this session; then try again.`,
    { deniedHosts: [host] },
  );
}
