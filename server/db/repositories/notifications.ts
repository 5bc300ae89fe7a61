import type { Db } from "@/server/db/client";
import type { ChatKind, NotificationKind } from "@/lib/notifications";

// A person's inbox and their delivery settings (server/services/notifications.ts decides what goes in).

export type NotificationRow = {
  id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  link: string;
  projectId: string | null;
  sessionId: string | null;
  createdAt: Date;
  readAt: Date | null;
};

const select = {
  id: true,
  kind: true,
  title: true,
  body: true,
  link: true,
  projectId: true,
  sessionId: true,
  createdAt: true,
  readAt: true,
} as const;

const asRow = (row: Omit<NotificationRow, "kind"> & { kind: string }) => row as NotificationRow;

/** A delivery still to do (`due`), done (`sent`), failed, or not wanted (null). */
export type DeliveryState = "due" | "sent" | "failed" | null;

export async function createNotification(
  db: Db,
  input: {
    personId: string;
    kind: NotificationKind;
    title: string;
    body: string;
    link: string;
    projectId?: string | null;
    sessionId?: string | null;
    emailState: DeliveryState;
    chatState: DeliveryState;
    read: boolean;
  },
): Promise<NotificationRow> {
  const { read, ...data } = input;
  return asRow(await db.notification.create({ data: { ...data, readAt: read ? new Date() : null }, select }));
}

export async function listNotifications(
  db: Db,
  personId: string,
  options: { unreadOnly: boolean; limit: number; before?: Date },
): Promise<NotificationRow[]> {
  const rows = await db.notification.findMany({
    where: {
      personId,
      ...(options.unreadOnly ? { readAt: null } : {}),
      ...(options.before ? { createdAt: { lt: options.before } } : {}),
    },
    select,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: options.limit,
  });
  return rows.map(asRow);
}

export function countUnread(db: Db, personId: string): Promise<number> {
  return db.notification.count({ where: { personId, readAt: null } });
}

/** Marks the person's own notifications read (ids of someone else's are ignored); all of them without ids. */
export async function markRead(db: Db, personId: string, ids?: readonly string[]): Promise<number> {
  const result = await db.notification.updateMany({
    where: { personId, readAt: null, ...(ids ? { id: { in: [...ids] } } : {}) },
    data: { readAt: new Date() },
  });
  return result.count;
}

/** Keeps the newest `keep` of a person's notifications. */
export async function pruneNotifications(db: Db, personId: string, keep: number): Promise<void> {
  const cutoff = await db.notification.findMany({
    where: { personId },
    select: { createdAt: true },
    orderBy: { createdAt: "desc" },
    skip: keep,
    take: 1,
  });
  if (cutoff[0]) await db.notification.deleteMany({ where: { personId, createdAt: { lte: cutoff[0].createdAt } } });
}

export type SettingsRow = {
  channels: unknown;
  chatKind: ChatKind | null;
  chat: { keyId: string; secret: Uint8Array } | null;
  lastError: string | null;
};

export async function findSettings(db: Db, personId: string): Promise<SettingsRow | null> {
  const row = await db.notificationSettings.findUnique({
    where: { personId },
    select: { channels: true, chatKind: true, chatKeyId: true, chatUrl: true, lastError: true },
  });
  if (!row) return null;
  return {
    channels: row.channels,
    chatKind: row.chatKind as ChatKind | null,
    chat: row.chatKeyId && row.chatUrl ? { keyId: row.chatKeyId, secret: row.chatUrl } : null,
    lastError: row.lastError,
  };
}

/** Saves the person's choices; `chat` undefined keeps the webhook, null removes it. */
export async function saveSettings(
  db: Db,
  personId: string,
  input: { channels: object; chat?: { kind: ChatKind; keyId: string; secret: Uint8Array } | null },
): Promise<void> {
  const chat =
    input.chat === undefined
      ? {}
      : input.chat === null
        ? { chatKind: null, chatKeyId: null, chatUrl: null, lastError: null }
        : {
            chatKind: input.chat.kind,
            chatKeyId: input.chat.keyId,
            chatUrl: Buffer.from(input.chat.secret),
            lastError: null,
          };
  await db.notificationSettings.upsert({
    where: { personId },
    create: { personId, channels: input.channels, ...chat },
    update: { channels: input.channels, ...chat },
  });
}

const WINDOW_FIELD = { email: "lastEmailAt", chat: "lastChatAt" } as const;
const STATE_FIELD = { email: "emailState", chat: "chatState" } as const;

/**
 * Takes the person's digest window on one channel: true for exactly one caller (of every
 * instance) when the last send was `windowMs` ago or longer, and starts a new window.
 */
export async function claimDigestWindow(
  db: Db,
  personId: string,
  channel: "email" | "chat",
  windowMs: number,
): Promise<boolean> {
  const now = new Date();
  const field = WINDOW_FIELD[channel];
  await db.notificationSettings.upsert({ where: { personId }, create: { personId }, update: {} });
  const claimed = await db.notificationSettings.updateMany({
    where: {
      personId,
      OR: [{ [field]: null }, { [field]: { lte: new Date(now.getTime() - windowMs) } }],
    },
    data: { [field]: now },
  });
  return claimed.count === 1;
}

/** Takes every due delivery of the person on the channel (marking them sent) and returns them, oldest first. */
export async function takeDue(db: Db, personId: string, channel: "email" | "chat"): Promise<NotificationRow[]> {
  const field = STATE_FIELD[channel];
  const rows = await db.notification.updateManyAndReturn({
    where: { personId, [field]: "due" },
    data: { [field]: "sent" },
    select,
  });
  return rows.map(asRow).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}

export async function markDeliveryFailed(
  db: Db,
  personId: string,
  channel: "email" | "chat",
  ids: readonly string[],
  error: string,
): Promise<void> {
  await db.notification.updateMany({
    where: { personId, id: { in: [...ids] } },
    data: { [STATE_FIELD[channel]]: "failed" },
  });
  await db.notificationSettings.update({ where: { personId }, data: { lastError: error.slice(0, 500) } });
}

/** People with deliveries due on a channel (what the digest's sweep visits). */
export async function peopleWithDue(db: Db, channel: "email" | "chat"): Promise<string[]> {
  const rows = await db.notification.findMany({
    where: { [STATE_FIELD[channel]]: "due" },
    select: { personId: true },
    distinct: ["personId"],
    take: 500,
  });
  return rows.map((r) => r.personId);
}

/** The people who wrote in a session (besides its author): they follow it. */
export async function sessionParticipants(db: Db, sessionId: string): Promise<string[]> {
  const rows = await db.sessionEvent.findMany({
    where: { sessionId, type: "user_message", authorId: { not: null } },
    select: { authorId: true },
    distinct: ["authorId"],
    take: 50,
  });
  return rows.flatMap((r) => (r.authorId ? [r.authorId] : []));
}

/** The members of a project's team who may be mentioned there: id, name and email. */
export async function projectPeople(db: Db, projectId: string) {
  const project = await db.project.findUnique({
    where: { id: projectId },
    select: { team: { select: { members: { select: { user: { select: { id: true, name: true, email: true } } } } } } },
  });
  return project?.team.members.map((m) => m.user) ?? [];
}

export async function findEmail(db: Db, personId: string): Promise<string | null> {
  return (await db.user.findUnique({ where: { id: personId }, select: { email: true } }))?.email ?? null;
}

export async function findPersonByEmail(db: Db, email: string): Promise<string | null> {
  return (
    (await db.user.findFirst({ where: { email: { equals: email, mode: "insensitive" } }, select: { id: true } }))?.id ??
    null
  );
}

/** Who sent the session's last message (the person its turn works for), else null. */
export async function lastMessageAuthor(db: Db, sessionId: string): Promise<string | null> {
  const row = await db.sessionEvent.findFirst({
    where: { sessionId, type: "user_message" },
    select: { authorId: true },
    orderBy: { seq: "desc" },
  });
  return row?.authorId ?? null;
}

/** Marks read the unread notifications of these kinds about a session; returns whose they were. */
export async function markSessionRead(db: Db, sessionId: string, kinds: readonly string[]): Promise<string[]> {
  const rows = await db.notification.updateManyAndReturn({
    where: { sessionId, kind: { in: [...kinds] }, readAt: null },
    data: { readAt: new Date() },
    select: { personId: true },
  });
  return [...new Set(rows.map((r) => r.personId))];
}
