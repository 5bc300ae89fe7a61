import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";
import { createSql, poolTypes, type Sql } from "@/server/db/sql";

/** Prisma, and `sql` for the hot statements (sql.ts) on the same pool of connections. */
export type Db = PrismaClient & { readonly sql: Sql };

export function createDb(connectionString: string): Db {
  const pool = new pg.Pool({ connectionString, types: poolTypes });
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  return Object.assign(client, { sql: createSql(pool) });
}
