import type { Db } from "@/server/db/client";
import type { ChatKind } from "@/lib/notifications";

// The chat channels a project configured for the agent's send_message (URLs sealed; never listed).

export type ChannelRow = { id: string; name: string; kind: ChatKind; createdAt: Date };
const select = { id: true, name: true, kind: true, createdAt: true } as const;
const asRow = (row: Omit<ChannelRow, "kind"> & { kind: string }) => row as ChannelRow;

export async function listChannels(db: Db, projectId: string): Promise<ChannelRow[]> {
  return (await db.projectChannel.findMany({ where: { projectId }, select, orderBy: { name: "asc" } })).map(asRow);
}

/** A channel with its sealed URL, for sending. */
export async function findChannel(db: Db, projectId: string, name: string) {
  const row = await db.projectChannel.findUnique({
    where: { projectId_name: { projectId, name } },
    select: { ...select, keyId: true, url: true },
  });
  return row ? { ...asRow(row), sealed: { keyId: row.keyId, secret: row.url } } : null;
}

/** Adds the channel, or replaces its kind and URL when the name exists. */
export async function saveChannel(
  db: Db,
  input: { projectId: string; name: string; kind: ChatKind; keyId: string; secret: Uint8Array; createdById: string },
): Promise<ChannelRow> {
  const data = { kind: input.kind, keyId: input.keyId, url: Buffer.from(input.secret) };
  return asRow(
    await db.projectChannel.upsert({
      where: { projectId_name: { projectId: input.projectId, name: input.name } },
      create: { projectId: input.projectId, name: input.name, createdById: input.createdById, ...data },
      update: data,
      select,
    }),
  );
}

export async function removeChannel(db: Db, projectId: string, name: string): Promise<boolean> {
  return (await db.projectChannel.deleteMany({ where: { projectId, name } })).count === 1;
}
