import { createPreviewLink, revokePreviewLink } from "@/server/db/repositories/preview-ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectTwoNotifyHubs } from "@/server/test/notify-hubs";
import { createTeam } from "@/server/db/repositories/teams";
import { createProject } from "@/server/db/repositories/projects";
import { createSession } from "@/server/db/repositories/sessions";
import { insertEvents } from "@/server/db/repositories/session-events";
import { createShareLink, revokeShareLink } from "@/server/db/repositories/share-links";
import type { NotifyHub } from "@/server/cluster/pg-notify";
import { createPgSessionBus } from "@/server/cluster/pg-session-bus";
import { createPgAccessChanges, createPgLinkRevocations } from "@/server/cluster/pg-access-changes";
import { until } from "@/server/test/until";
import { parseSessionEvent, type LiveItem } from "@/lib/session-events";

// Two instances' buses on one real Postgres. Instance B loses its connection and cannot get it
// back for a while; what instance A publishes meanwhile never reaches B as a notification, yet B's
// subscribers learn of it once B is back: the events from the log, access re-checked, the revoked
// link ended.

let hubs: Awaited<ReturnType<typeof connectTwoNotifyHubs>>;
let a: NotifyHub;
let b: NotifyHub;

beforeAll(async () => {
  hubs = await connectTwoNotifyHubs();
  ({ a, b } = hubs);
});

afterAll(async () => {
  await hubs?.close();
});

const previewLinkInput = { port: 5173, expiresAt: new Date(Date.now() + 86_400_000) };

describe("the Postgres bus across a lost connection", () => {
  it("delivers between instances, and after B's connection comes back B catches up on what it missed", async () => {
    const db = hubs.database.db;
    const user = await db.user.create({
      data: { id: "u1", name: "Ann", email: "ann@example.com" },
      select: { id: true },
    });
    const team = await createTeam(db, { name: "Acme", ownerId: user.id });
    const project = await createProject(db, { name: "P", ownerId: user.id, teamId: team.id });
    const session = await createSession(db, {
      projectId: project.id,
      title: "S",
      authorId: user.id,
      model: "openai-compatible:none",
    });
    const { link } = await createShareLink(db, {
      sessionId: session.id,
      scope: "view",
      label: "x",
      createdById: user.id,
      expiresAt: new Date(Date.now() + 86_400_000),
    });

    const busA = createPgSessionBus(a, db);
    const busB = createPgSessionBus(b, db);
    const accessA = createPgAccessChanges(a);
    const accessB = createPgAccessChanges(b);
    const linksA = createPgLinkRevocations(a, db);
    const linksB = createPgLinkRevocations(b, db);
    const seen: number[] = [];
    busB.subscribe(session.id, (item: LiveItem) => item.kind === "event" && seen.push(item.event.seq));
    let rechecks = 0;
    accessB.subscribe({ userId: "u2" }, () => rechecks++);
    let revoked = false;
    linksB.subscribe(link.id, () => (revoked = true));
    // Public preview links share the channel: B finds the one revoked meanwhile, and leaves the live one be.
    const preview = (await createPreviewLink(db, { ...previewLinkInput, projectId: project.id, createdById: user.id }))
      .link;
    const livePreview = (
      await createPreviewLink(db, { ...previewLinkInput, projectId: project.id, createdById: user.id })
    ).link;
    const previewsEnded: string[] = [];
    linksB.subscribe(preview.id, () => previewsEnded.push(preview.id));
    linksB.subscribe(livePreview.id, () => previewsEnded.push(livePreview.id));

    const append = async (seq: number) => {
      const event = {
        sessionId: session.id,
        seq,
        type: "user_message" as const,
        payload: { text: `m${seq}`, authorName: "Ann" },
        authorId: user.id,
        createdAt: new Date(),
      };
      await insertEvents(db, [event]);
      busA.publish(session.id, { kind: "event", event: parseSessionEvent(event) });
    };

    // Connected: A's publications reach B.
    await append(1);
    accessA.publish({ kind: "user", userId: "u2" });
    await until(() => seen.includes(1) && rechecks === 1, "B hearing A", 5_000);

    // B cut off: A goes on publishing; B hears nothing of it.
    const allow = await hubs.cutB();
    await append(2);
    await append(3);
    await revokeShareLink(db, session.id, link.id);
    linksA.publish(link.id);
    await revokePreviewLink(db, project.id, preview.id);
    linksA.publish(preview.id);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen).toEqual([1]);
    expect(revoked).toBe(false);
    const rechecksBefore = rechecks;

    // B back: it reads the log on from seq 1, re-checks access, and finds the link revoked.
    await allow();
    await until(() => seen.includes(3) && revoked && rechecks > rechecksBefore, "B catching up", 10_000);
    expect(seen).toEqual([1, 2, 3]);
    await until(() => previewsEnded.length > 0, "B finding the revoked preview link", 10_000);
    expect(previewsEnded).toEqual([preview.id]);
  });
});
