import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceLeases } from "@/server/cluster/workspace-leases";
import { workspaceLeaseOf } from "@/server/db/repositories/workspace-leases";
import { createAgentHarness } from "@/server/test/agent-harness";

// The workspace lease on a real Postgres, with short leases: one holder at a time, renewed while it
// lives, taken by the next instance that needs the project once it lapses, given back on shutdown,
// and a holder that lost its lease drops the project's live resources.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness();
});
afterAll(() => h.dispose());

// Heartbeats well inside the lease, so a loaded machine does not make a live holder look dead.
const timing = { leaseMs: 1_500, heartbeatMs: 200 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function instance(url: string) {
  const lost: string[] = [];
  const host = createWorkspaceLeases({ db: h.env.services.db, lost: (projectId) => lost.push(projectId), ...timing });
  host.start(url);
  return { host, lost, url };
}

describe("workspace leases", () => {
  it("keeps a project on its first holder while it renews, and sends the others there", async () => {
    const projectId = (await h.caller.project.create({ name: "Leased" })).id;
    const a = instance("http://a.test:1");
    const b = instance("http://b.test:2");
    expect(await a.host.owner(projectId)).toEqual({ local: true });
    await sleep(timing.leaseMs * 2);
    expect(await b.host.owner(projectId)).toEqual({ local: false, url: a.url });
    expect(await a.host.owner(projectId)).toEqual({ local: true });
    expect(a.lost).toEqual([]);
    await a.host.release();
    await b.host.release();
  });

  it("gives a lapsed lease to the next instance that needs the project, and sends the others to it", async () => {
    const projectId = (await h.caller.project.create({ name: "Lapsed" })).id;
    const a = instance("http://a.test:1");
    const b = instance("http://b.test:2");
    expect(await a.host.owner(projectId)).toEqual({ local: true });
    // A stops renewing (killed): its row stays, lapsed.
    await a.host.release();
    await h.env.services.db
      .$executeRaw`INSERT INTO workspace_lease ("projectId", "instanceId", "instanceUrl", "leaseUntil") VALUES (${projectId}, ${a.host.instanceId}, ${a.url}, now() AT TIME ZONE 'UTC' - interval '1 second')`;
    expect(await b.host.owner(projectId)).toEqual({ local: true });
    expect((await workspaceLeaseOf(h.env.services.db, projectId))?.instanceUrl).toBe(b.url);
    const c = instance("http://c.test:3");
    expect(await c.host.owner(projectId)).toEqual({ local: false, url: b.url });
    await b.host.release();
    await c.host.release();
  });

  it("tells a holder whose lease another instance took, so it drops the project's terminals", async () => {
    const projectId = (await h.caller.project.create({ name: "Taken" })).id;
    const a = instance("http://a.test:1");
    expect(await a.host.owner(projectId)).toEqual({ local: true });
    await h.env.services.db
      .$executeRaw`UPDATE workspace_lease SET "instanceId" = 'another', "instanceUrl" = 'http://other.test:4' WHERE "projectId" = ${projectId}`;
    await sleep(timing.heartbeatMs * 4);
    expect(a.lost).toEqual([projectId]);
    await a.host.release();
  });

  it("gives every lease back on shutdown, for the next instance to take at once", async () => {
    const projectId = (await h.caller.project.create({ name: "Released" })).id;
    const a = instance("http://a.test:1");
    const b = instance("http://b.test:2");
    expect(await a.host.owner(projectId)).toEqual({ local: true });
    await a.host.release();
    expect(await workspaceLeaseOf(h.env.services.db, projectId)).toBeNull();
    expect(await b.host.owner(projectId)).toEqual({ local: true });
    await b.host.release();
  });
});
