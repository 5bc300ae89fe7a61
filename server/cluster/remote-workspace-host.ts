import { FORWARDED_HEADER, forwardingHeader, forwardingKey } from "@/server/cluster/workspace-forwarding";
import type { WorkspaceHost } from "@/server/cluster/workspace-host";

// The WorkspaceHost of a web instance when workspace runners hold the projects
// (TANDEM_WORKSPACE_RUNNERS_URL): every live request goes to the runners' URL.

/** Where a web instance asks a workspace runner to hold a project (start-server.ts serves it to signed requests only). */
export const HOLD_PATH = "/api/cluster/hold";

export function createRemoteWorkspaceHost(runnersUrl: string, secret: string): WorkspaceHost {
  const key = forwardingKey(secret);
  return {
    owner: async () => ({ local: false, url: runnersUrl }),
    // A request signed like a forwarded one: the runner it reaches takes the lease, or finds that
    // another runner holds it. The viewer's rights were checked here, by fs.changes.
    async hold(projectId) {
      const url = `${HOLD_PATH}?projectId=${encodeURIComponent(projectId)}`;
      const target = new URL(url, runnersUrl);
      const signed = { method: "POST", host: target.host, url };
      const response = await fetch(target, {
        method: "POST",
        headers: { [FORWARDED_HEADER]: forwardingHeader(key, signed, "workspace-host", 1) },
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok)
        throw new Error(`the workspace runners answered ${response.status} when asked to hold project ${projectId}`);
    },
    start: () => {},
    release: async () => {},
  };
}
