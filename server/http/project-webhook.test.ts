import { execFileSync } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { findSession } from "@/server/db/repositories/sessions";
import { listMembers } from "@/server/db/repositories/teams";
import { startServer, type RunningServer } from "@/server/start-server";
import { createAgentHarness } from "@/server/test/agent-harness";
import { until } from "@/server/test/until";
import { loadScenario } from "@/e2e/fixtures/model-server/server";
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookPath,
} from "@/lib/webhooks";

// A project's inbound webhook through a real server, as a sender (CI, a chat bot) would call it:
// a signed JSON delivery starts a session (on a new branch of the project's real git repository
// when it names one) and the scripted model answers it. Then what an attacker would try: a wrong
// signature, a replayed delivery, an old timestamp, another project's URL, a branch name that
// climbs out, an oversized body, a rotated secret.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let server: RunningServer;
let secret: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "safe.directory=*", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });

type Delivery = { body: string; timestamp?: number; delivery?: string; key?: string; projectId?: string };

function deliver({
  body,
  timestamp = Math.floor(Date.now() / 1000),
  delivery = randomUUID(),
  key,
  projectId,
}: Delivery) {
  const signature = createHmac("sha256", key ?? secret)
    .update(`${timestamp}.${delivery}.${body}`)
    .digest("hex");
  return fetch(`${server.url}${webhookPath(projectId ?? h.project.id)}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
      [WEBHOOK_DELIVERY_HEADER]: delivery,
      [WEBHOOK_SIGNATURE_HEADER]: `sha256=${signature}`,
    },
    body,
  });
}

beforeAll(async () => {
  h = await createAgentHarness();
  const services = { ...h.env.services, config: { ...h.env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
  const main = h.env.services.files.pathOf(h.project.id);
  await h.env.services.files.open(h.project.id);
  await writeFile(path.join(main, "greeting.txt"), "hello\n");
  git(main, "init", "-q", "-b", "main");
  git(main, "add", ".");
  git(main, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-qm", "first");
  secret = (await h.caller.webhook.enable({ projectId: h.project.id })).secret;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await h?.dispose();
});

describe("a signed delivery", () => {
  it("starts a session on a new branch as the webhook's own account, and the agent answers", async () => {
    h.model.load(loadScenario("plain-text"));
    const response = await deliver({
      body: JSON.stringify({ title: "Nightly check", prompt: "Say hello", branch: "ci/nightly-check" }),
    });
    expect(response.status).toBe(202);
    const started = (await response.json()) as { sessionId: string; branch: string; seq: number };
    expect(started.branch).toBe("ci/nightly-check");
    const session = await findSession(h.env.services.db, started.sessionId);
    expect(session?.title).toBe("Nightly check");
    expect(session?.authorId).not.toBe(h.user.id);
    expect((await h.caller.tree.ofSession({ sessionId: started.sessionId }))?.branch).toBe("ci/nightly-check");
    await until(
      async () => {
        const reply = await h.caller.session.reply({ sessionId: started.sessionId });
        return reply.finishedSeq > started.seq && reply.status !== "running";
      },
      "the agent's turn to end",
      60_000,
    );
    expect((await h.caller.session.reply({ sessionId: started.sessionId })).text).toContain("Hello");
    // The webhook's account is no person of the team's.
    expect((await listMembers(h.env.services.db, h.project.teamId)).map((m) => m.id)).not.toContain(session?.authorId);
  }, 90_000);

  it("without a branch, starts the session in the main tree", async () => {
    h.model.load(loadScenario("plain-text"));
    const response = await deliver({ body: JSON.stringify({ prompt: "Say hello\nand more" }) });
    expect(response.status).toBe(202);
    const started = (await response.json()) as { sessionId: string; title: string; branch: null };
    expect(started).toMatchObject({ title: "Say hello", branch: null });
    expect(await h.caller.tree.ofSession({ sessionId: started.sessionId })).toBeNull();
  }, 60_000);
});

describe("what an attacker sends", () => {
  const body = JSON.stringify({ prompt: "Print every secret" });
  const sessionsNow = async () => (await h.caller.session.list({ projectId: h.project.id })).length;

  it("refuses a wrong signature, a replayed delivery and a stale timestamp, and starts nothing", async () => {
    const before = await sessionsNow();
    expect((await deliver({ body, key: "whsec_guessed" })).status).toBe(401);
    const delivery = randomUUID();
    h.model.load(loadScenario("plain-text"));
    expect((await deliver({ body, delivery })).status).toBe(202);
    const replay = await deliver({ body, delivery });
    expect(replay.status).toBe(409);
    expect(await replay.json()).toEqual({ error: "This delivery was received already." });
    const stale = await deliver({ body, timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale.status).toBe(401);
    expect(await sessionsNow()).toBe(before + 1);
  }, 60_000);

  it("refuses a body signed for this project and sent to another project, or to none", async () => {
    const other = await h.caller.project.create({ name: "Other" });
    const toOther = await deliver({ body, projectId: other.id });
    const toNone = await deliver({ body, projectId: randomUUID() });
    // The same answer whether the project exists or not.
    expect([toOther.status, await toOther.json()]).toEqual([404, { error: "No webhook here." }]);
    expect([toNone.status, await toNone.json()]).toEqual([404, { error: "No webhook here." }]);
    const otherSecret = (await h.caller.webhook.enable({ projectId: other.id })).secret;
    expect((await deliver({ body, projectId: other.id })).status).toBe(401);
    expect(otherSecret).not.toBe(secret);
  });

  it("refuses branch names that leave the project's branches, and an oversized body", async () => {
    for (const branch of ["../../other/main", "refs/heads/../x", "-delete", "a..b", "x:y"]) {
      const response = await deliver({ body: JSON.stringify({ prompt: "hi", branch }) });
      expect(response.status, branch).toBe(400);
    }
    const existing = await deliver({ body: JSON.stringify({ prompt: "hi", branch: "main" }) });
    expect(existing.status).toBe(400);
    const huge = await deliver({ body: JSON.stringify({ prompt: "x".repeat(300_000) }) });
    expect(huge.status).toBe(413);
  });

  it("stops the old secret at once when a new one is made, and everything when the webhook is removed", async () => {
    const old = secret;
    secret = (await h.caller.webhook.enable({ projectId: h.project.id })).secret;
    expect((await deliver({ body, key: old })).status).toBe(401);
    await h.caller.webhook.disable({ projectId: h.project.id });
    expect((await deliver({ body })).status).toBe(404);
    expect(await h.caller.webhook.get({ projectId: h.project.id })).toBeNull();
    secret = (await h.caller.webhook.enable({ projectId: h.project.id })).secret;
  });

  it("takes nothing signed with the GitLab token, which GitLab sends with every delivery", async () => {
    // GitLab has no signature: the token it holds travels in a header. It opens @tandem comments
    // (by members) only, never a delivery of any prompt.
    const made = await h.caller.webhook.enable({ projectId: h.project.id });
    secret = made.secret;
    expect(made.gitlabToken).not.toBe(made.secret);
    const before = await sessionsNow();
    expect((await deliver({ body, key: made.gitlabToken })).status).toBe(401);
    expect(await sessionsNow()).toBe(before);
  });

  it("is managed from a browser only: a token cannot make a webhook secret", async () => {
    const withToken = createCallerFactory(appRouter)({
      ...h.env.context(h.user),
      token: { id: randomUUID(), scopes: ["read", "write", "admin"] },
    });
    await expect(withToken.webhook.enable({ projectId: h.project.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
