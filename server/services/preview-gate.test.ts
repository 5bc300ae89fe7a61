import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import type { Context } from "@/server/api/context";
import { createPreviewLink } from "@/server/db/repositories/preview-ports";
import { addMember, createTeam, removeMember } from "@/server/db/repositories/teams";
import { createTestServices } from "@/server/test/services";
import { until } from "@/server/test/until";

// Who gets through the preview proxy, against a real database, tried as an attacker would: a
// viewer on a private port, someone outside the team, a member who left; a public link of
// another port or project, expired, revoked and used again, made up; a link revoked by someone
// of another project.

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
type User = NonNullable<Context["user"]>;
let owner: User;
let member: User;
let viewer: User;
let outsider: User;
let projectId: string;
let otherProjectId: string;
const caller = (user: User) => createCaller(env.context(user));
/** A login session of the person's, as a sign-in makes (a preview session is bound to one): its id. */
const signIn = async (user: User) =>
  (
    await env.services.db.loginSession.create({
      data: { id: randomUUID(), token: randomUUID(), userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) },
    })
  ).id;
/** A preview grant of the person's, under a login session of their own. */
const personGrant = async (user: User, port: number) => ({
  projectId,
  port,
  exp: Date.now() + 60_000,
  nonce: "n",
  userId: user.id,
  by: { loginSessionId: await signIn(user) },
});

beforeAll(async () => {
  env = await createTestServices();
  [owner, member, viewer, outsider] = await Promise.all([
    env.createUser(),
    env.createUser(),
    env.createUser(),
    env.createUser(),
  ]);
  const db = env.services.db;
  const team = await createTeam(db, { name: `Previews ${randomUUID().slice(0, 6)}`, ownerId: owner.id });
  await addMember(db, team.id, member.id, "member");
  await addMember(db, team.id, viewer.id, "viewer");
  projectId = (await caller(owner).project.create({ name: "Previewed", teamId: team.id })).id;
  const otherTeam = await createTeam(db, { name: `Others ${randomUUID().slice(0, 6)}`, ownerId: outsider.id });
  otherProjectId = (await caller(outsider).project.create({ name: "Other", teamId: otherTeam.id })).id;
}, 120_000);

afterAll(async () => {
  await env?.dispose();
});

describe("a port's visibility", () => {
  it("private: the project's writers only; team: viewers too; never anyone outside, nor a member who left", async () => {
    const gate = env.services.previewGate;
    const may = (user: User, port = 5173) => gate.personMayOpen(user.id, projectId, port);
    expect(await may(owner)).toBe(true);
    expect(await may(member)).toBe(true);
    expect(await may(viewer)).toBe(false);
    expect(await may(outsider)).toBe(false);
    // A viewer cannot share the port with themselves.
    await expect(
      caller(viewer).ports.setVisibility({ projectId, port: 5173, visibility: "team" }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await caller(member).ports.setVisibility({ projectId, port: 5173, visibility: "team" });
    expect(await may(viewer)).toBe(true);
    expect(await may(outsider)).toBe(false);
    // Another port of the project, and the same port of another project, stay private.
    expect(await may(viewer, 5174)).toBe(false);
    expect(await gate.personMayOpen(viewer.id, otherProjectId, 5173)).toBe(false);
    // A session made while they could is re-checked on every request.
    const grant = await personGrant(viewer, 5173);
    expect(await gate.admits(grant)).toBe(true);
    await caller(owner).ports.setVisibility({ projectId, port: 5173, visibility: "private" });
    expect(await gate.admits(grant)).toBe(false);
    // Answers are kept a few seconds, but never past a change: the next request is refused at once.
    const team = (await env.services.db.project.findUniqueOrThrow({ where: { id: projectId } })).teamId;
    await removeMember(env.services.db, team, member.id);
    expect(await gate.admits(await personGrant(member, 5173))).toBe(false);
    await addMember(env.services.db, team, member.id, "member");
  });

  it("ends a person's open previews the moment the port turns private, and no answer read meanwhile outlives it", async () => {
    const gate = env.services.previewGate;
    const port = 5180;
    const grant = await personGrant(viewer, port);
    await caller(owner).ports.setVisibility({ projectId, port, visibility: "team" });
    expect(await gate.admits(grant)).toBe(true);
    let ended = 0;
    const stop = gate.onAccessEnd(grant, () => ended++);
    // A member's open preview is not ended by the same change: they may still open it.
    let memberEnded = 0;
    const stopMember = gate.onAccessEnd(await personGrant(member, port), () => memberEnded++);
    await caller(owner).ports.setVisibility({ projectId, port, visibility: "private" });
    await until(async () => ended === 1, "the viewer's open preview is ended");
    expect(await gate.admits(grant)).toBe(false);
    stop();
    // Requests keep coming while the port goes team and back to private, over and over: once it
    // is private, no request gets through on an answer kept from before.
    for (let round = 0; round < 20; round++) {
      await caller(owner).ports.setVisibility({ projectId, port, visibility: "team" });
      const racing = Array.from({ length: 5 }, () => gate.admits(grant));
      await caller(owner).ports.setVisibility({ projectId, port, visibility: "private" });
      await Promise.all(racing);
      expect(await gate.admits(grant), `round ${round}`).toBe(false);
    }
    expect(memberEnded).toBe(0);
    stopMember();
  });

  it("is asked for by the Ports view: a viewer cannot open a private port's preview", async () => {
    env.services.previews.listening(41_999);
    await expect(caller(viewer).ports.preview({ projectId, port: 5173 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // A writer gets past the rule (this test server gives workspaces no network, so serves no previews).
    await expect(caller(member).ports.preview({ projectId, port: 5173 })).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
    });
  });
});

describe("a public link", () => {
  const target = () => ({ projectId, port: 5173 });
  const make = async (port = 5173, hours = 1, project = projectId) =>
    createPreviewLink(env.services.db, {
      projectId: project,
      port,
      createdById: owner.id,
      expiresAt: new Date(Date.now() + hours * 3_600_000),
    });

  it("opens its own project's port alone, until it expires", async () => {
    const gate = env.services.previewGate;
    const { token, link } = await make();
    expect((await gate.link(token, target()))?.id).toBe(link.id);
    expect(await gate.link(token, { projectId, port: 5174 })).toBeNull();
    expect(await gate.link(token, { projectId: otherProjectId, port: 5173 })).toBeNull();
    // Tokens that are not one, or are one a character off.
    expect(await gate.link("not-a-token", target())).toBeNull();
    expect(await gate.link(`${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`, target())).toBeNull();
    expect(await gate.link(`${token} `, target())).toBeNull();
    const expired = await make(5173, -1);
    expect(await gate.link(expired.token, target())).toBeNull();
    expect(await gate.admits({ ...target(), exp: Date.now() + 60_000, nonce: "n", linkId: expired.link.id })).toBe(
      false,
    );
    // A session naming a link of another port (a forged grant) opens nothing here.
    const other = await make(5174);
    expect(await gate.admits({ ...target(), exp: Date.now() + 60_000, nonce: "n", linkId: other.link.id })).toBe(false);
    // The token is stored as a hash only.
    const row = await env.services.db.previewLink.findUniqueOrThrow({ where: { id: link.id } });
    expect(row.tokenHash).not.toContain(token);
  });

  it("ends its sessions' open requests and sockets when the session's time is up, unasked", async () => {
    const gate = env.services.previewGate;
    const { link } = await make();
    // A public link's session ends with the link (its exp is the link's expiry), a person's after 8 hours.
    const exp = Date.now() + 1_000;
    let linkEnded = 0;
    let personEnded = 0;
    const stops = [
      gate.onAccessEnd({ ...target(), exp, nonce: "n", linkId: link.id }, () => (linkEnded = Date.now())),
      gate.onAccessEnd({ ...(await personGrant(member, 5173)), exp }, () => (personEnded = Date.now())),
    ];
    await until(() => linkEnded > 0 && personEnded > 0, "both sessions ended at their expiry", 5_000);
    expect(Math.min(linkEnded, personEnded)).toBeGreaterThanOrEqual(exp);
    for (const stop of stops) stop();
  });

  it("revoked: at once for its open sessions, and its token never opens again", async () => {
    const gate = env.services.previewGate;
    const { token, link } = await make();
    const grant = { ...target(), exp: Date.now() + 60_000, nonce: "n", linkId: link.id };
    expect(await gate.admits(grant)).toBe(true);
    const told: string[] = [];
    const stop = gate.onAccessEnd(grant, () => told.push(link.id));
    // A viewer cannot revoke it, nor can the writer of another project, whose project it is not.
    await expect(caller(viewer).ports.revokeLink({ projectId, linkId: link.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(
      caller(outsider).ports.revokeLink({ projectId: otherProjectId, linkId: link.id }),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    expect(await gate.admits(grant)).toBe(true);
    expect(told).toEqual([]);
    await caller(member).ports.revokeLink({ projectId, linkId: link.id });
    expect(told).toEqual([link.id]);
    expect(await gate.admits(grant)).toBe(false);
    expect(await gate.link(token, target())).toBeNull();
    // Revoking again says there is nothing live to revoke.
    await expect(caller(member).ports.revokeLink({ projectId, linkId: link.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    stop();
    const listed = await caller(member).ports.links({ projectId });
    expect(listed.find((l) => l.id === link.id)?.state).toBe("revoked");
    expect(JSON.stringify(listed)).not.toContain(token);
    // Viewers do not list the project's links.
    await expect(caller(viewer).ports.links({ projectId })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("opens only while its maker could still make it: a removed, demoted or disabled maker's link ends, its open sessions at once", async () => {
    const gate = env.services.previewGate;
    const db = env.services.db;
    const { teamId } = await db.project.findUniqueOrThrow({ where: { id: projectId }, select: { teamId: true } });
    for (const leaving of ["removed", "demoted", "disabled"] as const) {
      // Mallory, a member about to leave, makes a public link to the team's app and keeps it.
      const mallory = await env.createUser();
      await addMember(db, teamId, mallory.id, "member");
      const { token, link: made } = await createPreviewLink(db, {
        projectId,
        port: 5173,
        createdById: mallory.id,
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      const grant = { ...target(), exp: Date.now() + 60_000, nonce: "n", linkId: made.id };
      expect(await gate.link(token, target())).not.toBeNull();
      expect(await gate.admits(grant)).toBe(true);
      let ended = 0;
      const stop = gate.onAccessEnd(grant, () => ended++);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(ended).toBe(0);

      if (leaving === "removed") await caller(owner).team.removeMember({ teamId, userId: mallory.id });
      else if (leaving === "demoted") await caller(owner).team.setRole({ teamId, userId: mallory.id, role: "viewer" });
      else
        await caller((await env.createUser("admin")) as User).account.setUserDisabled({
          userId: mallory.id,
          disabled: true,
        });

      await until(() => ended > 0, `the ${leaving} maker's open preview ended`, 2_000);
      expect(await gate.admits(grant), leaving).toBe(false);
      expect(await gate.link(token, target()), leaving).toBeNull();
      expect((await caller(owner).ports.links({ projectId })).find((l) => l.id === made.id)?.state).toBe("ended");
      stop();
    }
    // The owner's link goes on.
    const { token } = await make();
    expect(await gate.link(token, target())).not.toBeNull();
  });

  it("is made by writers, for at most 30 days", async () => {
    await expect(caller(viewer).ports.createLink({ projectId, port: 5173, expiresInHours: 1 })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(
      caller(member).ports.createLink({ projectId, port: 5173, expiresInHours: 31 * 24 }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("an entry link in a cluster", () => {
  it("is spent once on the shared database, however many instances race for it", async () => {
    const gate = env.services.previewGate;
    for (let round = 0; round < 5; round++) {
      const entry = { nonce: randomUUID(), exp: Date.now() + 60_000 };
      const spent = await Promise.all(Array.from({ length: 8 }, () => gate.spendEntry(entry)));
      expect(spent.filter(Boolean)).toHaveLength(1);
      expect(await gate.spendEntry(entry)).toBe(false);
    }
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  // Instance A spends a link; instance C, whose clock is two minutes ahead, spends another and so
  // tidies up; instance B, whose clock is a minute behind, still takes the first for unexpired.
  it("is spent once whatever the instances' clocks say", async () => {
    const gate = env.services.previewGate;
    const entry = { nonce: randomUUID(), exp: Date.now() + 60_000 };
    expect(await gate.spendEntry(entry)).toBe(true);
    const real = Date.now();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(real + 120_000);
    expect(await gate.spendEntry({ nonce: randomUUID(), exp: Date.now() + 60_000 })).toBe(true);
    vi.setSystemTime(real - 60_000);
    expect(await gate.spendEntry(entry)).toBe(false);
  });

  it("is not spent, so not opened, once the database's clock says it expired", async () => {
    const gate = env.services.previewGate;
    // Signed by an instance whose clock is behind; the instance it is presented to is behind too.
    expect(await gate.spendEntry({ nonce: randomUUID(), exp: Date.now() - 1_000 })).toBe(false);
  });
});
