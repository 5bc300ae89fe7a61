import { createHash } from "node:crypto";
import type { Db } from "@/server/db/client";
import type { ImageRef } from "@/lib/images";

// The images a session's events refer to, content-addressed per session.

export async function storeSessionImage(
  db: Db,
  sessionId: string,
  bytes: Buffer,
  mediaType: string,
): Promise<ImageRef> {
  const hash = createHash("sha256").update(bytes).digest("hex");
  await db.sessionImage.upsert({
    where: { sessionId_hash: { sessionId, hash } },
    create: { sessionId, hash, mediaType, size: bytes.length, data: new Uint8Array(bytes) },
    update: {},
  });
  return { hash, mediaType, size: bytes.length };
}

export async function findSessionImage(db: Db, sessionId: string, hash: string) {
  return db.sessionImage.findUnique({
    where: { sessionId_hash: { sessionId, hash } },
    select: { hash: true, mediaType: true, size: true, data: true },
  });
}

export async function findSessionImageRefs(db: Db, sessionId: string, hashes: string[]): Promise<ImageRef[]> {
  if (hashes.length === 0) return [];
  return db.sessionImage.findMany({
    where: { sessionId, hash: { in: hashes } },
    select: { hash: true, mediaType: true, size: true },
  });
}

/** The bytes of the given images, by hash (for a model request). */
export async function loadSessionImages(
  db: Db,
  sessionId: string,
  hashes: string[],
): Promise<Map<string, { data: Uint8Array; mediaType: string }>> {
  if (hashes.length === 0) return new Map();
  const rows = await db.sessionImage.findMany({
    where: { sessionId, hash: { in: hashes } },
    select: { hash: true, mediaType: true, data: true },
  });
  return new Map(rows.map((r) => [r.hash, { data: new Uint8Array(r.data), mediaType: r.mediaType }]));
}
