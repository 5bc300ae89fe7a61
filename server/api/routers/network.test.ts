import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { createSession } from "@/server/db/repositories/sessions";
import { addMember } from "@/server/db/repositories/teams";
import { listEvents } from "@/server/db/repositories/session-events";
import { DEFAULT_ALLOW_HOSTS } from "@/lib/egress-policy";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { createTestServices } from "@/server/test/services";

// A project's network settings through the API, and its connection log filled by a real
// sandboxed curl through the egress proxy, seen live by a subscriber.

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
let server: http.Server;
let port: number;
const hasBwrap = await bwrapAvailable();

beforeAll(async () => {
  server = http.createServer((_req, res) => res.end("from the registry"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  env = await createTestServices({
    sandbox: hasBwrap ? "bwrap" : "none",
    egressTestHosts: new Map([["registry.test", "127.0.0.1"]]),
  });
});
afterAll(async () => {
  server.close();
  await env.dispose();
});

describe("network router", () => {
  it("starts a project on the default allow-list, lets its admin edit it, and honours the admin's permitted policies", async () => {
    const owner = await env.createUser("admin");
    const caller = createCaller(env.context(owner));
    const project = await caller.project.create({ name: "Net" });
    const initial = await caller.network.settings({ projectId: project.id });
    expect(initial.policy).toBe("allow-list");
    expect(initial.allowHosts).toEqual(DEFAULT_ALLOW_HOSTS);
    const saved = await caller.network.update({
      projectId: project.id,
      policy: "open",
      allowHosts: ["*.example.com", "Registry.Test"],
    });
    expect(saved).toEqual({ policy: "open", allowHosts: ["*.example.com", "registry.test"] });
    await expect(
      caller.network.update({ projectId: project.id, policy: "allow-list", allowHosts: ["not a host!"] }),
    ).rejects.toThrow(/host name/);
    await caller.account.setNetworkPolicies({ networkPolicies: ["off", "allow-list"] });
    // A policy the admin ruled out falls back to off, the most restrictive permitted, and cannot be chosen again.
    expect((await env.services.network.policies.get(project.id)).policy).toBe("off");
    await expect(caller.network.update({ projectId: project.id, policy: "open", allowHosts: [] })).rejects.toThrow(
      /not permitted/,
    );
    await caller.account.setNetworkPolicies({ networkPolicies: ["off", "allow-list", "open"] });
  });

  it("moves projects whose policy the admin rules out to the most restrictive permitted one, and back when it is permitted again", async () => {
    const admin = await env.createUser("admin");
    const caller = createCaller(env.context(admin));
    const open = await caller.project.create({ name: "Open" });
    const off = await caller.project.create({ name: "Off" });
    const listed = await caller.project.create({ name: "Listed" });
    await caller.network.update({ projectId: open.id, policy: "open", allowHosts: ["registry.test"] });
    await caller.network.update({ projectId: off.id, policy: "off", allowHosts: [] });
    const inForce = async () =>
      Promise.all([open, off, listed].map(async (p) => (await env.services.network.policies.get(p.id)).policy));
    expect(await inForce()).toEqual(["open", "off", "allow-list"]);
    try {
      // Without off, every project reaches (only) its own allow-list, at once.
      expect(await caller.account.setNetworkPolicies({ networkPolicies: ["allow-list", "allow-list"] })).toEqual({
        networkPolicies: ["allow-list"],
      });
      expect(await inForce()).toEqual(["allow-list", "allow-list", "allow-list"]);
      expect(await caller.network.settings({ projectId: open.id })).toEqual({
        policy: "allow-list",
        allowHosts: ["registry.test"],
        permitted: ["allow-list"],
      });
      await expect(caller.network.update({ projectId: off.id, policy: "off", allowHosts: [] })).rejects.toThrow(
        /not permitted/,
      );

      await caller.account.setNetworkPolicies({ networkPolicies: ["off", "allow-list"] });
      expect(await inForce()).toEqual(["off", "off", "allow-list"]);
      await expect(caller.account.setNetworkPolicies({ networkPolicies: [] })).rejects.toThrow(/at least one policy/);
    } finally {
      await caller.account.setNetworkPolicies({ networkPolicies: ["off", "allow-list", "open"] });
    }
    // Each project's own choice was kept.
    expect(await inForce()).toEqual(["open", "off", "allow-list"]);
  });

  it("adds a host from a session's card and records who allowed it there", async () => {
    const owner = await env.createUser();
    const caller = createCaller(env.context(owner));
    const project = await caller.project.create({ name: "Card" });
    const session = await createSession(env.services.db, {
      projectId: project.id,
      title: "s",
      authorId: owner.id,
      model: "openai-compatible:none",
    });
    const after = await caller.network.allowHost({
      projectId: project.id,
      host: "registry.test",
      sessionId: session.id,
    });
    expect(after.allowHosts).toContain("registry.test");
    const events = await listEvents(env.services.db, session.id, -1);
    expect(events.find((e) => e.type === "network_host_allowed")?.payload).toEqual({
      host: "registry.test",
      by: { id: owner.id, name: owner.name },
    });
    expect((await caller.session.get({ sessionId: session.id })).canAllowHosts).toBe(true);
  });

  it("shows a member the card without the Allow button, and refuses the member's allowHost", async () => {
    const owner = await env.createUser();
    const member = await env.createUser();
    const project = await createCaller(env.context(owner)).project.create({ name: "Card for members" });
    await addMember(env.services.db, project.teamId, member.id, "member");
    const session = await createSession(env.services.db, {
      projectId: project.id,
      title: "s",
      authorId: owner.id,
      model: "openai-compatible:none",
    });
    const asMember = createCaller(env.context(member));
    expect((await asMember.session.get({ sessionId: session.id })).canAllowHosts).toBe(false);
    await expect(
      asMember.network.allowHost({ projectId: project.id, host: "registry.test", sessionId: session.id }),
    ).rejects.toThrow();
    expect((await listEvents(env.services.db, session.id, -1)).some((e) => e.type === "network_host_allowed")).toBe(
      false,
    );
  });

  it("tells signed-in people whether commands run sandboxed (the IDE's banner), and nobody else", async () => {
    const status = await createCaller(env.context(await env.createUser())).account.status();
    expect(status.sandbox).toBe(hasBwrap ? "on" : "off");
    expect((await createCaller(env.context(null)).account.status()).sandbox).toBeNull();
  });

  it.runIf(hasBwrap)("logs a terminal's connections and shows them live", async () => {
    const owner = await env.createUser();
    const caller = createCaller(env.context(owner));
    const project = await caller.project.create({ name: "Live" });
    await caller.network.update({ projectId: project.id, policy: "allow-list", allowHosts: ["registry.test"] });
    const live = (await caller.network.onConnection({ projectId: project.id })) as AsyncIterableIterator<{
      host: string;
      allowed: boolean;
      sourceKind: string;
    }>;
    const first = live.next();
    const workspace = await env.services.files.open(project.id);
    const launch = await env.services.sandbox.launch({
      workspaceRoot: workspace.root,
      command: ["/bin/bash", "-c", `curl -s http://registry.test:${port}/; curl -s http://elsewhere.test:${port}/`],
      newSession: true,
      projectId: project.id,
      source: { kind: "terminal", id: "t-1" },
    });
    const c = launch.command;
    const out = await new Promise<string>((resolve) =>
      execFile(c.file, c.args, { env: c.env as NodeJS.ProcessEnv, cwd: c.cwd }, (_e, stdout) => resolve(stdout)),
    );
    await launch.close();
    expect(out).toContain("from the registry");
    expect((await first).value).toMatchObject({ host: "registry.test", allowed: true, sourceKind: "terminal" });
    expect((await live.next()).value).toMatchObject({ host: "elsewhere.test", allowed: false });
    await live.return?.();
    const log = await caller.network.connections({ projectId: project.id, limit: 10 });
    expect(log.map((r) => [r.host, r.allowed])).toEqual([
      ["elsewhere.test", false],
      ["registry.test", true],
    ]);
  });
});
