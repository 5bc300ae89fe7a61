import os from "node:os";

// Where a project's live resources (terminals, language servers, MCP connections) are served, as
// the request forwarding (workspace-forwarding.ts) asks it. Two implementations:
// - local (workspace-leases.ts): the instances themselves hold projects by lease, and a request
//   that reaches a non-holder goes to the holder;
// - remote (remote-workspace-host.ts): the web instances hold nothing and send every such request to the workspace
//   runners (workspace-runner-main.ts, a Kubernetes Deployment of their own) through the URL that
//   balances over them; the runner it reaches holds projects by the same lease, or passes the
//   request once more to the runner that does.
// Both speak the same protocol: the client's own request, signed with the server secret.

/** Who serves a project: this process, or the instance at `url`. */
export type WorkspaceOwner = { local: true } | { local: false; url: string };

export interface WorkspaceHost {
  /** Who serves the project's live resources now: this process, or the URL to forward to. */
  owner(projectId: string): Promise<WorkspaceOwner>;
  /**
   * Makes sure some process holds the project, and so watches its files (held-workspace-watch.ts):
   * a viewer of its files is connected here. Called again every few seconds while they are, so that
   * a holder that died is replaced.
   */
  hold(projectId: string): Promise<void>;
  /** This process listens at `url` (where peers reach it). */
  start(url: string): void;
  /** A shutdown: whatever this process holds goes to others at once. */
  release(): Promise<void>;
}

/**
 * Where the other instances of a cluster reach this one when TANDEM_INSTANCE_URL is not set: on a
 * wildcard address (a container, a pod), its first external IPv4 address, which its peers on the
 * same network reach; otherwise the address it listens on.
 */
export function peerUrl(host: string, port: number, listenUrl: string): string {
  if (host !== "0.0.0.0" && host !== "::") return listenUrl;
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((address) => address && address.family === "IPv4" && !address.internal);
  return external ? `http://${external.address}:${port}` : listenUrl;
}
