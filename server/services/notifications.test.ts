import http from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { addMember } from "@/server/db/repositories/teams";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { until } from "@/server/test/until";
import { postChat } from "@/server/services/chat-webhooks";
import { type DEFAULT_CHANNELS, deliveryPrefs, type DeliveryPrefs, NOTIFICATION_KINDS } from "@/lib/notifications";
import { freePort } from "@/scripts/free-port.mjs";

// Notifications against their real counterparts, started here on loopback: the agent runtime with
// the scripted model (approvals, questions, ends, mentions), a real SMTP server capturing the mail
// (the digest), and a real HTTP server standing in for the chat services' incoming webhooks, which
// checks each service's payload shape. The webhook posts pass web_fetch's address guard; the
// receiver's host:port is allowed the way tests allow loopback servers, and the attacker cases aim
// at every other loopback, private and metadata address.

type Mail = { to: string[]; data: string };
type Post = { path: string; body: Record<string, unknown> };
const mails: Mail[] = [];
const posts: Post[] = [];
let smtp: SMTPServer;
let receiver: http.Server;
let receiverPort = 0;
let h: Awaited<ReturnType<typeof createAgentHarness>>;
const WINDOW_MS = 2_500;

function checkShape(path: string, body: Record<string, unknown>): string | null {
  switch (path) {
    case "/slack":
      return Object.keys(body).join() === "text" && typeof body.text === "string" ? null : "slack wants { text }";
    case "/mattermost":
      return typeof body.text === "string" && body.username === "Tandem" ? null : "mattermost wants { text, username }";
    case "/discord":
      return typeof body.content === "string" && (body.content as string).length <= 2000 && !("text" in body)
        ? null
        : "discord wants { content } of at most 2000 characters";
    case "/teams": {
      const card = (body.attachments as { contentType: string; content: { type: string; body: unknown[] } }[])?.[0];
      return body.type === "message" &&
        card?.contentType === "application/vnd.microsoft.card.adaptive" &&
        card.content.type === "AdaptiveCard" &&
        card.content.body.length >= 1
        ? null
        : "teams wants a message with an Adaptive Card attachment";
    }
    default:
      return null;
  }
}

beforeAll(async () => {
  const smtpPort = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let data = "";
      stream.on("data", (c: Buffer) => (data += c.toString()));
      stream.on("end", () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), data });
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(smtpPort, "127.0.0.1", r));
  receiver = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const path = req.url ?? "/";
      if (path === "/redirect") {
        res.writeHead(302, { location: `http://127.0.0.1:1/slack` }).end();
        return;
      }
      const body = JSON.parse(raw || "{}") as Record<string, unknown>;
      const wrong = req.headers["content-type"] !== "application/json" ? "not JSON" : checkShape(path, body);
      if (wrong) {
        res.writeHead(400).end(wrong);
        return;
      }
      posts.push({ path, body });
      res.writeHead(path === "/discord" ? 204 : 200).end(path === "/discord" ? undefined : "ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverPort = (receiver.address() as AddressInfo).port;
  h = await createAgentHarness({
    extensions: {
      smtp: {
        host: "127.0.0.1",
        port: smtpPort,
        secure: false,
        user: undefined,
        password: undefined,
        from: "tandem@example.com",
      },
    },
    chatAllowHosts: [`127.0.0.1:${receiverPort}`],
    digestWindowMs: WINDOW_MS,
    digestSweepMs: 200,
  });
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
}, 60_000);
afterAll(async () => {
  await h?.dispose();
  await new Promise<void>((r) => smtp.close(() => r()));
  await new Promise<void>((r) => receiver.close(() => r()));
});

const hook = (path: string) => `http://127.0.0.1:${receiverPort}${path}`;
const only_ = (channels: Partial<typeof DEFAULT_CHANNELS>): DeliveryPrefs =>
  Object.fromEntries(
    NOTIFICATION_KINDS.map((k) => [k, { inApp: true, browser: false, email: false, chat: false, ...channels }]),
  ) as DeliveryPrefs;

async function person(name: string, role: "member" | "viewer" = "member") {
  const user = await h.env.createUser();
  const named = await h.env.services.db.user.update({ where: { id: user.id }, data: { name }, select: { name: true } });
  await addMember(h.env.services.db, h.project.teamId, user.id, role);
  const caller = createCallerFactory(appRouter)(h.env.context({ ...user, name: named.name }));
  return { user: { ...user, name: named.name }, caller };
}

describe("the inbox", () => {
  it("tells the person whose message started a turn that it waits for approval, then that it finished", async () => {
    await h.caller.notification.markRead({});
    const session = await h.newSession("approval");
    const events = await h.send(session.id, "write hello");
    const requested = only(events, "approval_requested")[0]!;
    await h.env.noticesSettled();
    const [waiting] = await h.caller.notification.list({ unreadOnly: true });
    expect(waiting).toMatchObject({ kind: "approval", link: `/p/${h.project.id}?session=${session.id}` });
    expect(waiting!.title).toContain("waits for your approval");
    expect(await h.caller.notification.unreadCount()).toBe(1);

    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    await h.env.noticesSettled();
    const [finished] = await h.caller.notification.list({ unreadOnly: true });
    expect(finished).toMatchObject({ kind: "session_finished", sessionId: session.id });
    // Answered: the approval no longer waits, so it is read.
    expect(await h.caller.notification.unreadCount()).toBe(1);
    expect((await h.caller.notification.list({})).find((n) => n.id === waiting!.id)?.readAt).not.toBeNull();

    await h.caller.notification.markRead({ ids: [finished!.id] });
    expect(await h.caller.notification.unreadCount()).toBe(0);
  }, 90_000);

  it("a run started for someone else (as a scheduled run is, for who scheduled it) waits for them, not for the project's owner", async () => {
    const sam = await person("Sam Scheduler");
    const session = await h.agent.createSession({
      projectId: h.project.id,
      title: "Scheduled: nightly",
      authorId: sam.user.id,
    });
    h.model.load({
      replies: [
        { toolCalls: [{ name: "write", arguments: { path: "nightly.txt", content: "x" } }] },
        { match: "wrote", text: "ok" },
      ],
    });
    await h.agent.send({ sessionId: session.id, text: "nightly job", user: { id: sam.user.id, name: sam.user.name } });
    await h.agent.idle(session.id);
    await h.env.noticesSettled();
    const [waiting] = await sam.caller.notification.list({ unreadOnly: true });
    expect(waiting).toMatchObject({ kind: "approval", sessionId: session.id });
    expect((await h.caller.notification.list({ unreadOnly: true })).some((n) => n.sessionId === session.id)).toBe(
      false,
    );
  }, 90_000);

  it("does not tell someone watching the session that it finished: they saw it", async () => {
    await h.caller.notification.markRead({});
    const session = await h.newSession("plain-text");
    const leave = h.env.services.presence.join(session.id, {
      key: "tab-1",
      userId: h.user.id,
      name: h.user.name,
      guest: false,
    });
    try {
      await h.send(session.id, "hello");
      await h.env.noticesSettled();
      expect(await h.caller.notification.unreadCount()).toBe(0);
    } finally {
      leave();
    }
  }, 90_000);

  it("tells people named with @ in a message (the project's members only), and never the writer", async () => {
    const mia = await person("Mia Member");
    const outsider = await h.env.createUser();
    const outsiderCaller = createCallerFactory(appRouter)(h.env.context(outsider));
    const session = await h.newSession("plain-text");
    await h.send(session.id, `@MiaMember and @${outsider.email.split("@")[0]} please look`);
    await h.env.noticesSettled();
    const [mention] = await mia.caller.notification.list({ unreadOnly: true });
    expect(mention).toMatchObject({ kind: "mention", sessionId: session.id });
    expect(mention!.body).toContain("please look");
    expect(await outsiderCaller.notification.unreadCount()).toBe(0);
  }, 90_000);

  it("streams the unread count and the newest notification as the inbox changes", async () => {
    const ann = await person("Ann Watcher");
    const stream = (await ann.caller.notification.watch()) as AsyncIterable<{
      unread: number;
      newest: { title: string } | null;
    }>;
    const updates = stream[Symbol.asyncIterator]();
    expect((await updates.next()).value).toEqual({ unread: 0, newest: null });
    const next = updates.next();
    await h.env.services.notifications.notify(ann.user.id, {
      kind: "budget",
      title: "80% of the team's budget is used",
      link: "/",
    });
    expect((await next).value).toMatchObject({ unread: 1, newest: { title: "80% of the team's budget is used" } });
    await updates.return?.();
  }, 60_000);
});

describe("delivery", () => {
  it("emails the first notice at once and the ones within the digest window as one digest", async () => {
    const eve = await person("Eve Email");
    await eve.caller.notification.saveSettings({ prefs: only_({ email: true }) });
    const notify = (title: string) =>
      h.env.services.notifications.notify(eve.user.id, { kind: "mention", title, link: "/" });
    await notify("first");
    await until(() => mails.some((m) => m.to.includes(eve.user.email)), "the first email", 10_000);
    await notify("second");
    await notify("third");
    await new Promise((r) => setTimeout(r, WINDOW_MS / 2));
    expect(mails.filter((m) => m.to.includes(eve.user.email))).toHaveLength(1);
    await until(() => mails.filter((m) => m.to.includes(eve.user.email)).length === 2, "the digest", 10_000);
    const [first, digest] = mails.filter((m) => m.to.includes(eve.user.email));
    expect(first!.data).toContain("Subject: first");
    expect(digest!.data).toContain("Subject: 2 notifications from Tandem");
    expect(digest!.data).toContain("second");
    expect(digest!.data).toContain("third");
  }, 90_000);

  it.each(["slack", "discord", "mattermost", "teams"] as const)(
    "posts to a %s incoming webhook in that service's shape",
    async (kind) => {
      const carl = await person(`Carl ${kind}`);
      await carl.caller.notification.saveSettings({
        prefs: only_({ chat: true }),
        chat: { kind, url: hook(`/${kind}`) },
      });
      expect(await carl.caller.notification.settings()).toMatchObject({ chatKind: kind, lastError: null });
      await h.env.services.notifications.notify(carl.user.id, {
        kind: "session_finished",
        title: `"Fix the build" finished`,
        body: "All tests pass.",
        link: "/p/x?session=y",
      });
      await until(
        () => posts.some((p) => p.path === `/${kind}` && JSON.stringify(p.body).includes("Fix the build")),
        "the post",
        10_000,
      );
      const text = JSON.stringify(posts.find((p) => p.path === `/${kind}`)!.body);
      expect(text).toContain("All tests pass.");
      expect(text).toContain("http://tandem.test/p/x?session=y");
    },
  );

  it("keeps the webhook URL on the server: settings show its kind only", async () => {
    const sue = await person("Sue Secret");
    await sue.caller.notification.saveSettings({
      prefs: deliveryPrefs({}),
      chat: { kind: "slack", url: hook("/slack") },
    });
    expect(JSON.stringify(await sue.caller.notification.settings())).not.toContain(String(receiverPort));
    await sue.caller.notification.testChat();
  });
});

describe("webhooks as an attacker aims them", () => {
  it.each([
    ["localhost, a name for loopback", () => `http://localhost:${receiverPort}/slack`],
    ["another loopback port", () => `http://127.0.0.1:${receiverPort + 1}/slack`],
    ["IPv6 loopback", () => `http://[::1]:${receiverPort}/slack`],
    ["the cloud metadata address", () => "http://169.254.169.254/latest/meta-data/"],
    ["a private address", () => "http://10.1.2.3/hooks"],
    ["loopback as an IPv4-mapped IPv6 address", () => `http://[::ffff:127.0.0.1]:${receiverPort}/slack`],
  ])("refuses %s and tells the person why", async (_what, url) => {
    const mal = await person(`Mal ${Math.random().toString(36).slice(2, 6)}`);
    await mal.caller.notification.saveSettings({ prefs: only_({ chat: true }), chat: { kind: "slack", url: url() } });
    const before = posts.length;
    await expect(mal.caller.notification.testChat()).rejects.toThrow(/address|webhooks go only/);
    await h.env.services.notifications.notify(mal.user.id, { kind: "mention", title: "x", link: "/" });
    await until(
      async () => (await mal.caller.notification.settings()).lastError !== null,
      "the failure recorded",
      10_000,
    );
    expect((await mal.caller.notification.settings()).lastError).toMatch(/Chat delivery failed/);
    expect(posts.length).toBe(before);
  });

  it("refuses a public name that resolves to loopback (DNS rebinding) and follows no redirect", async () => {
    const rebinding = async () => [{ address: "127.0.0.1", family: 4 }];
    await expect(
      postChat(
        "slack",
        `http://hooks.example.com:${receiverPort}/slack`,
        { title: "t", text: "x" },
        { allowHosts: [], resolve: rebinding },
      ),
    ).rejects.toThrow(/127\.0\.0\.1, a loopback address/);
    await expect(
      postChat("slack", hook("/redirect"), { title: "t", text: "x" }, { allowHosts: [`127.0.0.1:${receiverPort}`] }),
    ).rejects.toThrow(/answered 302/);
  });

  it("refuses URLs with credentials or other schemes before anything is stored", async () => {
    const ivy = await person("Ivy Input");
    for (const url of ["file:///etc/passwd", "https://user:pw@hooks.slack.com/x", "not a url"])
      await expect(
        ivy.caller.notification.saveSettings({ prefs: deliveryPrefs({}), chat: { kind: "slack", url } }),
      ).rejects.toThrow(/incoming-webhook URL/);
  });
});

describe("send_message", () => {
  beforeEach(async () => {
    await h.caller.channel.save({ projectId: h.project.id, name: "team-chat", kind: "discord", url: hook("/discord") });
  });

  it("posts to a channel the project configured, by name, after a person approves it", async () => {
    expect(await h.caller.channel.list({ projectId: h.project.id })).toEqual([
      expect.objectContaining({ name: "team-chat", kind: "discord" }),
    ]);
    const session = await h.newSession({
      replies: [
        {
          match: "Tell the team",
          toolCalls: [{ name: "send_message", arguments: { channel: "team-chat", text: "Build is green." } }],
        },
        { match: "Sent to", text: "Told them." },
      ],
    });
    const events = await h.send(session.id, "Tell the team");
    expect(h.model.requests.at(-1)!.toolDescriptions.send_message).toContain("team-chat");
    const requested = only(events, "approval_requested")[0]!;
    expect(requested.payload.toolName).toBe("send_message");
    const before = posts.filter((p) => p.path === "/discord").length;
    await h.caller.approval.respond({ approvalId: requested.payload.approvalId, decision: "approve" });
    await h.agent.idle(session.id);
    const sent = posts.filter((p) => p.path === "/discord");
    expect(sent).toHaveLength(before + 1);
    expect(sent.at(-1)!.body.content).toContain("Build is green.");
  }, 90_000);

  it("names only configured channels: anything else (a URL the model made up) is not found", async () => {
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
    try {
      const session = await h.newSession({
        replies: [
          {
            match: "Leak",
            toolCalls: [{ name: "send_message", arguments: { channel: "http://169.254.169.254/", text: "secrets" } }],
          },
          { match: "no channel", text: "Could not." },
        ],
      });
      const events = await h.send(session.id, "Leak it");
      const result = only(events, "tool_result")[0]!;
      expect(result.payload).toMatchObject({ ok: false, errorCode: "NOT_FOUND" });
      expect(result.payload.llm).toContain("Its channels: team-chat");
    } finally {
      await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    }
  }, 90_000);

  it("sends nothing from a project whose network is off", async () => {
    const before = await h.caller.network.settings({ projectId: h.project.id });
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
    await h.caller.network.update({ projectId: h.project.id, policy: "off", allowHosts: [] });
    try {
      const session = await h.newSession({
        replies: [
          { match: "Announce", toolCalls: [{ name: "send_message", arguments: { channel: "team-chat", text: "hi" } }] },
          { match: "network", text: "Could not." },
        ],
      });
      const count = posts.length;
      const result = only(await h.send(session.id, "Announce it"), "tool_result")[0]!;
      expect(result.payload).toMatchObject({ ok: false, errorCode: "FETCH_FAILED" });
      expect(result.payload.llm).toContain("network is off");
      expect(posts.length).toBe(count);
    } finally {
      await h.caller.network.update({ projectId: h.project.id, policy: before.policy, allowHosts: before.allowHosts });
      await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "ask" });
    }
  }, 90_000);

  it("is not offered to a project without channels", async () => {
    await h.caller.channel.remove({ projectId: h.project.id, name: "team-chat" });
    const session = await h.newSession("plain-text");
    await h.send(session.id, "hello");
    expect(h.model.requests.at(-1)!.tools).not.toContain("send_message");
  }, 90_000);
});
