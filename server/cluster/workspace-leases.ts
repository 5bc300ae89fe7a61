import os from "node:os";
import { randomUUID } from "node:crypto";
import type { Db } from "@/server/db/client";
import * as leases from "@/server/db/repositories/workspace-leases";
import type { WorkspaceHost, WorkspaceOwner } from "@/server/cluster/workspace-host";

// In a cluster, a project's live resources (terminals, language servers, MCP connections) live in
// one instance's memory, so one instance at a time owns them: the holder of the project's
// workspace lease. The first instance that needs a project's live resources takes the lease; the
// holder renews all its leases every `heartbeatMs`; a lease not renewed for `leaseMs` (its
// instance was killed) goes to the next instance that needs the project, and an instance that
// shuts down gives its leases back at once. The same lease shape as turn jobs (turn-jobs.ts).

export type WorkspaceLeases = WorkspaceHost & { readonly instanceId: string };

/** The local WorkspaceHost: this process holds the projects whose lease it has. */
export function createWorkspaceLeases(options: {
  db: Db;
  /** This instance no longer holds the project (another took it, this one being presumed dead, or the project was deleted): drop its live resources. */
  lost: (projectId: string) => void;
  /** This instance has just taken the project's lease: its files are watched from here (held-workspace-watch.ts). */
  held?: (projectId: string) => void;
  leaseMs?: number;
  heartbeatMs?: number;
  log?: (line: string) => void;
}): WorkspaceLeases {
  const { db } = options;
  const instanceId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? 6_000;
  const heartbeatMs = options.heartbeatMs ?? 2_000;
  const log = options.log ?? console.error;
  let instanceUrl: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  const held = new Set<string>();

  async function heartbeat() {
    const kept = new Set(await leases.renewWorkspaceLeases(db, instanceId, leaseMs));
    for (const projectId of [...held]) {
      if (kept.has(projectId)) continue;
      held.delete(projectId);
      options.lost(projectId);
    }
  }

  /** Who serves the project's live resources: this instance (having taken the lease if it was free) or the live holder. */
  async function owner(projectId: string): Promise<WorkspaceOwner> {
    if (!instanceUrl) return { local: true };
    const holder = await leases.claimWorkspaceLease(db, { projectId, instanceId, instanceUrl, leaseMs });
    if (!holder || holder.instanceId === instanceId) {
      if (!held.has(projectId)) options.held?.(projectId);
      held.add(projectId);
      return { local: true };
    }
    return { local: false, url: holder.instanceUrl };
  }

  return {
    instanceId,

    /** Starts renewing once the instance listens at `url` (where its peers reach it). */
    start(url: string) {
      instanceUrl = url;
      let busy = false;
      timer = setInterval(() => {
        if (busy) return;
        busy = true;
        heartbeat()
          .catch((error: unknown) => log(`workspace leases: heartbeat failed: ${(error as Error).message}`))
          .finally(() => (busy = false));
      }, heartbeatMs);
      timer.unref();
    },

    owner,

    // A project held here is renewed by the heartbeat; only another instance's project needs asking.
    async hold(projectId: string) {
      if (!held.has(projectId)) await owner(projectId);
    },

    /** A shutdown: the leases go back, so the next request for these projects takes them without waiting for a lapse. */
    async release() {
      if (timer) clearInterval(timer);
      timer = null;
      held.clear();
      await leases.releaseWorkspaceLeases(db, instanceId);
    },
  };
}
