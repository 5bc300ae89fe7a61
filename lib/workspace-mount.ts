// Where sandboxed processes (terminals, the agent's shell, language servers) see their workspace:
// one short path, whatever the server's data directory is, so `pwd`, prompts and stack traces show
// `/workspace/src/app.ts` and never the host's `/var/lib/tandem/workspaces/3f9c…`. The sandbox binds
// the workspace there and at its host path too (git's own files and language servers' root URIs
// name the host path, and both must resolve inside); the Workspace accepts either spelling.

export const WORKSPACE_MOUNT = "/workspace";

/**
 * Where a process sees `root`: WORKSPACE_MOUNT in a bubblewrap sandbox, else the host path (no
 * sandbox: nothing to bind it with). A root at or under WORKSPACE_MOUNT on the host keeps its path,
 * since binding it over its own ancestor would hide it.
 */
export function workspacePathInside(sandboxed: boolean, root: string): string {
  if (!sandboxed) return root;
  return root === WORKSPACE_MOUNT || root.startsWith(`${WORKSPACE_MOUNT}/`) ? root : WORKSPACE_MOUNT;
}

/** `hostPath` (the root or a path under it) as a process inside sees it. */
export function insidePath(sandboxed: boolean, root: string, hostPath: string): string {
  const inside = workspacePathInside(sandboxed, root);
  if (inside === root) return hostPath;
  if (hostPath === root) return inside;
  return hostPath.startsWith(`${root}/`) ? inside + hostPath.slice(root.length) : hostPath;
}
