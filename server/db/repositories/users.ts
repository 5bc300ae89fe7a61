import { randomUUID } from "node:crypto";
import type { Db } from "@/server/db/client";

export type UserRole = "admin" | "user";
export type AppUser = { id: string; email: string; name: string; role: UserRole };

const userSelect = { id: true, email: true, name: true, role: true } as const;

export async function countUsers(db: Db) {
  return db.user.count();
}

export function toAppUser(user: { id: string; email: string; name: string; role?: string | null }): AppUser {
  return { id: user.id, email: user.email, name: user.name, role: user.role === "admin" ? "admin" : "user" };
}

export async function findUser(db: Db, id: string): Promise<AppUser | null> {
  const user = await db.user.findUnique({ where: { id }, select: userSelect });
  return user && toAppUser(user);
}

// The first account of an install becomes its admin. Done as one statement so two sign-ups racing
// on a fresh install cannot both become admin.
export async function promoteIfFirstUser(db: Db, userId: string): Promise<boolean> {
  const changed = await db.$executeRaw`
    UPDATE "user" SET "role" = 'admin'
    WHERE "id" = ${userId}
      AND NOT EXISTS (SELECT 1 FROM "user" WHERE "role" = 'admin' AND "id" <> ${userId})
      AND (SELECT count(*) FROM "user") = 1`;
  return changed === 1;
}

/** An account without a password, for a headless run of the agent (`npm run eval`): nobody signs in as it. */
export async function createHeadlessUser(db: Db, input: { name: string; email: string }): Promise<AppUser> {
  return toAppUser(
    await db.user.create({ data: { id: randomUUID(), name: input.name, email: input.email }, select: userSelect }),
  );
}
