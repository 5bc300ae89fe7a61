import type { InboxChanges } from "@/server/bus/inbox-changes";
import type { Db } from "@/server/db/client";
import * as repo from "@/server/db/repositories/notifications";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import type { MailSender } from "@/server/tools/send-email";
import { type ChatPost, ChatDeliveryError, postChat, type ChatMessage } from "@/server/services/chat-webhooks";
import {
  type ChatKind,
  type DeliveryPrefs,
  deliveryPrefs,
  KIND_LABELS,
  type NotificationKind,
} from "@/lib/notifications";

// A person's notifications: `notify(personId, notice)` is the one way in, for every part of the
// server (sessions' approvals, questions and ends and mentions: session-notices.ts; invitations;
// budgets). A notice lands in the person's inbox (when they keep that kind in the app; their tabs
// hear of it on the inbox bus, across instances, and raise a browser notification when they are
// hidden and the person wants that), and is due for email and for their chat webhook when they
// chose those for its kind.
//
// The digest rule, per person and channel: the first notice goes out at once; the ones that
// follow within the digest window (5 minutes) wait and go out together as one message when the
// window ends; then the next notice goes at once again. One instance takes each window (a
// conditional update of the person's row), so several instances never send twice. A failed
// delivery is not retried: the notices are marked failed and the person's settings show why.

export type Notice = {
  kind: NotificationKind;
  title: string;
  body?: string;
  /** A path in this app (`/p/<project>?session=<id>`). */
  link: string;
  projectId?: string | null;
  sessionId?: string | null;
};

/** What other parts of the server need: tell a person something. */
export interface Notifier {
  notify(personId: string, notice: Notice): Promise<void>;
}

/** What a session's log needs besides: waiting notices done with once answered. */
export interface SessionNotifier extends Notifier {
  answered(sessionId: string): Promise<void>;
}

export const DIGEST_WINDOW_MS = 5 * 60_000;
const KEPT_PER_PERSON = 500;

export type Notifications = ReturnType<typeof createNotifications>;

export function createNotifications(deps: {
  db: Db;
  changes: InboxChanges;
  cipher: CredentialCipher;
  /** Present when SMTP is configured: then email delivery is offered. */
  mail?: MailSender;
  /** Where links in emails and chat messages point (TANDEM_PUBLIC_URL); paths alone without it. */
  publicUrl?: string;
  chat: ChatPost;
  digestWindowMs?: number;
  /** How often waiting digests are looked at. */
  sweepMs?: number;
  log?: (line: string) => void;
}) {
  const { db } = deps;
  const windowMs = deps.digestWindowMs ?? DIGEST_WINDOW_MS;
  const log = deps.log ?? console.error;
  const absolute = (link: string) => (deps.publicUrl ? new URL(link, deps.publicUrl).toString() : link);
  const running = new Map<string, Promise<void>>();

  async function settingsOf(personId: string) {
    const row = await repo.findSettings(db, personId);
    const chatUrl = row?.chat ? deps.cipher.open(row.chat) : null;
    return {
      prefs: deliveryPrefs(row?.channels),
      chat: row?.chatKind && chatUrl ? { kind: row.chatKind, url: chatUrl } : null,
      lastError: row?.lastError ?? null,
    };
  }

  function message(rows: repo.NotificationRow[]): ChatMessage & { subject: string } {
    if (rows.length === 1) {
      const only = rows[0]!;
      return {
        subject: only.title,
        title: only.title,
        text: only.body || KIND_LABELS[only.kind],
        link: absolute(only.link),
      };
    }
    const lines = rows.map(
      (r) => `• ${r.title}${r.body ? `: ${r.body.split("\n")[0]!.slice(0, 200)}` : ""}\n  ${absolute(r.link)}`,
    );
    const title = `${rows.length} notifications from Tandem`;
    return { subject: title, title, text: lines.join("\n"), link: absolute("/") };
  }

  async function sendDue(personId: string, channel: "email" | "chat") {
    if (!(await repo.claimDigestWindow(db, personId, channel, windowMs))) return;
    const rows = await repo.takeDue(db, personId, channel);
    if (rows.length === 0) return;
    const m = message(rows);
    try {
      if (channel === "email") {
        const to = await repo.findEmail(db, personId);
        if (!deps.mail || !to) throw new Error("email is not set up on this server");
        await deps.mail.send({ to: [to], subject: m.subject, body: `${m.text}\n\n${m.link ?? ""}\n` });
      } else {
        const { chat } = await settingsOf(personId);
        if (!chat) throw new ChatDeliveryError("no chat webhook is set");
        await postChat(chat.kind, chat.url, m, deps.chat);
      }
    } catch (error) {
      const why = `${channel === "email" ? "Email" : "Chat"} delivery failed: ${(error as Error).message}`;
      log(`notifications: ${why}`);
      await repo.markDeliveryFailed(
        db,
        personId,
        channel,
        rows.map((r) => r.id),
        why,
      );
    }
  }

  /** Sends what is due for the person now, one delivery per person and channel at a time on this instance. */
  function deliver(personId: string, channel: "email" | "chat"): Promise<void> {
    const key = `${personId} ${channel}`;
    const previous = running.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => sendDue(personId, channel))
      .catch((error: unknown) => log(`notifications: could not deliver to ${personId}: ${(error as Error).message}`));
    running.set(key, next);
    void next.then(() => running.get(key) === next && running.delete(key));
    return next;
  }

  async function sweep() {
    for (const channel of ["email", "chat"] as const)
      for (const personId of await repo.peopleWithDue(db, channel)) await deliver(personId, channel);
  }

  let timer: NodeJS.Timeout | null = null;

  const notifications = {
    mailConfigured: !!deps.mail,
    digestWindowMs: windowMs,

    async notify(personId: string, notice: Notice): Promise<void> {
      const { prefs, chat } = await settingsOf(personId);
      const wanted = prefs[notice.kind];
      const email = wanted.email && !!deps.mail;
      const toChat = wanted.chat && !!chat;
      if (!wanted.inApp && !email && !toChat) return;
      await repo.createNotification(db, {
        personId,
        kind: notice.kind,
        title: notice.title.slice(0, 300),
        body: (notice.body ?? "").slice(0, 2000),
        link: notice.link,
        projectId: notice.projectId ?? null,
        sessionId: notice.sessionId ?? null,
        emailState: email ? "due" : null,
        chatState: toChat ? "due" : null,
        // Kept only for the other channels: never unread in the inbox.
        read: !wanted.inApp,
      });
      await repo.pruneNotifications(db, personId, KEPT_PER_PERSON);
      deps.changes.publish(personId);
      if (email) void deliver(personId, "email");
      if (toChat) void deliver(personId, "chat");
    },

    /** What was waiting in a session was answered: its approval and question notices are read for everyone. */
    async answered(sessionId: string) {
      for (const personId of await repo.markSessionRead(db, sessionId, ["approval", "question"]))
        deps.changes.publish(personId);
    },

    list: (personId: string, options: { unreadOnly: boolean; limit: number; before?: Date }) =>
      repo.listNotifications(db, personId, options),
    unreadCount: (personId: string) => repo.countUnread(db, personId),

    async markRead(personId: string, ids?: readonly string[]) {
      const count = await repo.markRead(db, personId, ids);
      if (count) deps.changes.publish(personId);
      return { marked: count };
    },

    /** The person's choices, whether email and chat can be used, and the chat webhook's kind (never its URL). */
    async settings(personId: string) {
      const { prefs, chat, lastError } = await settingsOf(personId);
      return {
        prefs,
        chatKind: chat?.kind ?? null,
        mailConfigured: !!deps.mail,
        digestMinutes: Math.round(windowMs / 60_000),
        lastError,
      };
    },

    /** `chat`: undefined keeps the webhook, null removes it, else the new one (sealed). */
    async saveSettings(
      personId: string,
      input: { prefs: DeliveryPrefs; chat?: { kind: ChatKind; url: string } | null },
    ) {
      const sealed = input.chat ? deps.cipher.seal(input.chat.url) : null;
      await repo.saveSettings(db, personId, {
        channels: input.prefs,
        chat: input.chat === undefined ? undefined : input.chat && sealed ? { kind: input.chat.kind, ...sealed } : null,
      });
      return notifications.settings(personId);
    },

    /** Sends a test message to the person's chat webhook now (outside the digest), so they see it works. */
    async testChat(personId: string) {
      const { chat } = await settingsOf(personId);
      if (!chat) throw new ChatDeliveryError("Set a chat webhook first.");
      await postChat(chat.kind, chat.url, { title: "Tandem", text: "Notifications will arrive here." }, deps.chat);
    },

    /** Looks at waiting digests every `sweepMs` (30 s). */
    start() {
      timer ??= setInterval(
        () => void sweep().catch((e: unknown) => log(`notifications: ${(e as Error).message}`)),
        deps.sweepMs ?? 30_000,
      );
      timer.unref();
    },
    sweep,
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await Promise.all(running.values());
    },
  };
  return notifications;
}

/**
 * The person's unread count and newest notification now, then again at each change of their inbox
 * (any instance's, through the inbox bus), until `signal` ends or it is returned. An iterator
 * rather than a generator, so that ending it stops it at once even while it waits for a change.
 */
export function watchInbox(
  notifications: Pick<Notifications, "list" | "unreadCount">,
  changes: InboxChanges,
  personId: string,
  signal: AbortSignal | undefined,
): AsyncIterableIterator<{ unread: number; newest: repo.NotificationRow | null }> {
  let dirty = true;
  let done = false;
  let wake: (() => void) | null = null;
  const stop = changes.subscribe(personId, () => {
    dirty = true;
    wake?.();
  });
  const end = () => {
    if (done) return;
    done = true;
    stop();
    signal?.removeEventListener("abort", end);
    wake?.();
  };
  if (signal?.aborted) end();
  else signal?.addEventListener("abort", end, { once: true });
  const iterator: AsyncIterableIterator<{ unread: number; newest: repo.NotificationRow | null }> = {
    async next() {
      while (!done) {
        if (dirty) {
          dirty = false;
          const [unread, newest] = await Promise.all([
            notifications.unreadCount(personId),
            notifications.list(personId, { unreadOnly: true, limit: 1 }),
          ]);
          return { value: { unread, newest: newest[0] ?? null }, done: false };
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
      return { value: undefined, done: true };
    },
    async return() {
      end();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
