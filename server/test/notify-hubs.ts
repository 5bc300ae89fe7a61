import pg from "pg";
import { expect, inject } from "vitest";
import { connectNotifyHub, type NotifyHub } from "@/server/cluster/pg-notify";
import { createTestDatabase } from "./database";

/**
 * Two instances' notify hubs, A and B, on one real test database, for tests of what crosses the
 * LISTEN/NOTIFY bus and of what B does after losing its connection.
 */
export async function connectTwoNotifyHubs() {
  const database = await createTestDatabase();
  const admin = new pg.Client({ connectionString: inject("databaseUrl") });
  await admin.connect();
  const a: NotifyHub = await connectNotifyHub(database.url, () => {});
  const b: NotifyHub = await connectNotifyHub(database.url, () => {});
  const name = new URL(database.url).pathname.slice(1);
  const allowConnections = async (allowed: boolean) =>
    void (await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS ${allowed}`));

  return {
    database,
    a,
    b,
    /** Cuts B's connection and keeps it from reconnecting until the returned function is called. */
    async cutB(): Promise<() => Promise<void>> {
      await allowConnections(false);
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
        [`tandem-bus-${b.instanceId.slice(0, 8)}`],
      );
      expect(rowCount).toBe(1);
      return () => allowConnections(true);
    },
    async close() {
      await a.close();
      await b.close();
      await allowConnections(true).catch(() => {});
      await admin.end();
      await database.drop();
    },
  };
}
