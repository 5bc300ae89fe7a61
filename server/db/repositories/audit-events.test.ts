import { describe, expect, it } from "vitest";
import { databaseForFile } from "@/server/test/database";
import { withAuditOrigin } from "@/server/db/audit-origin";
import { purgeAuditBefore, recordAudit, searchAudit, withoutSecrets } from "./audit-events";

// The audit log's table is append-only in the database itself, so that neither a bug nor a
// repository written later (nor SQL typed by hand through the app's connection) can rewrite history.

const database = databaseForFile();
const origin = { actorId: "ann", actorEmail: "ann@example.com", via: "browser" as const, ip: "10.0.0.5" };

describe("audit events", () => {
  it("records who acts from the call's origin, and searches by person, action, project and time", async () => {
    const projectId = crypto.randomUUID();
    await withAuditOrigin(origin, () =>
      recordAudit(database.db, "project.deleted", { projectId, detail: { name: "Shop" } }),
    );
    await recordAudit(database.db, "settings.changed", { target: "signupMode" });
    const mine = await searchAudit(database.db, { actor: "ANN@example" }, { limit: 10 });
    expect(mine).toMatchObject([
      { action: "project.deleted", actorId: "ann", ip: "10.0.0.5", via: "browser", projectId },
    ]);
    expect(await searchAudit(database.db, { action: "settings.changed" }, { limit: 10 })).toMatchObject([
      { actorId: null, via: "system", target: "signupMode" },
    ]);
    expect(await searchAudit(database.db, { projectId }, { limit: 10 })).toHaveLength(1);
    const later = new Date(Date.now() + 60_000);
    expect(await searchAudit(database.db, { from: later }, { limit: 10 })).toEqual([]);
  });

  it("refuses UPDATE, DELETE and TRUNCATE, even as raw SQL through the app's own connection", async () => {
    await recordAudit(database.db, "sign_in", { target: "ann" }, origin);
    await expect(database.db.$executeRaw`UPDATE audit_event SET "actorId" = 'mallory'`).rejects.toThrow(/append-only/);
    await expect(database.db.$executeRaw`DELETE FROM audit_event`).rejects.toThrow(/append-only/);
    await expect(database.db.$executeRaw`TRUNCATE audit_event`).rejects.toThrow(/append-only/);
    // Setting the purge's cut-off by hand lets through only rows older than it, never newer ones.
    await expect(
      database.db.$transaction([
        database.db.$executeRaw`SELECT set_config('tandem.audit_purge_before', '2000-01-01 00:00:00', true)`,
        database.db.$executeRaw`DELETE FROM audit_event`,
      ]),
    ).rejects.toThrow(/append-only/);
    expect((await searchAudit(database.db, { action: "sign_in" }, { limit: 10 })).map((r) => r.actorId)).toEqual([
      "ann",
    ]);
  });

  it("purges only what is older than the retention's cut-off", async () => {
    await database.db
      .$executeRaw`INSERT INTO audit_event ("at", "via", "action") VALUES (now() - interval '400 days', 'system', 'sign_out')`;
    const before = (await searchAudit(database.db, {}, { limit: 100 })).length;
    expect(await purgeAuditBefore(database.db, new Date(Date.now() - 365 * 86_400_000))).toBe(1);
    expect(await searchAudit(database.db, {}, { limit: 100 })).toHaveLength(before - 1);
    expect(await searchAudit(database.db, { action: "sign_out" }, { limit: 10 })).toEqual([]);
  });
});

describe("what a row keeps of a change's details", () => {
  it("never keeps a secret-looking value: a web search key, an MCP server's env and headers", () => {
    expect(
      withoutSecrets({
        value: { kind: "brave", apiKey: "sk-live-1" },
        mcpServers: { gh: { command: "gh-mcp", env: { GH: "ghp_x" }, headers: { "X-Api": "v" } } },
        allowHosts: ["registry.npmjs.org"],
        password: null,
      }),
    ).toEqual({
      value: { kind: "brave", apiKey: "[redacted]" },
      mcpServers: { gh: { command: "gh-mcp", env: { GH: "[redacted]" }, headers: { "X-Api": "[redacted]" } } },
      allowHosts: ["registry.npmjs.org"],
      password: "[redacted]",
    });
  });
});
