import { execFileSync } from "node:child_process";
import { readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "@/server/test/database";
import { useToolSessions } from "@/server/test/tool-session";
import { effectOf } from "./define-tool";
import { toolForcesApproval } from "./registry";
import { sqlQueryTool } from "./sql-query";

// sql_query against real SQLite files and a real PostgreSQL (the test run's embedded one), and as
// an attacker would use it: a link or FIFO in place of the database, ATTACH and VACUUM INTO to
// reach files by path, writes without write: true, "COMMIT; …" to leave a read-only transaction,
// and a URL at a loopback server that is not on the server's allow-list.

const session = useToolSessions();

// node:sqlite is Node 24's (the Node Tandem runs on); the type declarations are Node 20's.
type SqliteDb = { exec(sql: string): void; prepare(sql: string): { get(): unknown }; close(): void };
const { DatabaseSync } = process.getBuiltinModule("node:sqlite") as unknown as {
  DatabaseSync: new (file: string, options?: { readOnly?: boolean }) => SqliteDb;
};

function makeDb(file: string, sql: string) {
  const db = new DatabaseSync(file);
  db.exec(sql);
  db.close();
}

const SHOP = `create table items(id integer primary key, name text, price real);
insert into items(name, price) values ('apple', 1.5), ('pear', 2), ('plum', null);`;

describe("sql_query on SQLite", () => {
  it("reads rows, with params and a row cap, and describes the schema", async () => {
    const s = await session();
    makeDb(path.join(s.root, "shop.db"), SHOP);
    const all = await s.run(sqlQueryTool, { database: "shop.db", sql: "select name, price from items order by id" });
    expect(all.error).toBeUndefined();
    expect(all.llm).toBe("3 row(s) from shop.db:\nname\tprice\napple\t1.5\npear\t2\nplum\tNULL");
    expect(all.display).toMatchObject({ kind: "table", columns: ["name", "price"] });
    const one = await s.run(sqlQueryTool, {
      database: "shop.db",
      sql: "select name from items where price > ?",
      params: [1.8],
    });
    expect(one.llm).toContain("pear");
    expect(one.llm).not.toContain("apple");
    const capped = await s.run(sqlQueryTool, { database: "shop.db", sql: "select * from items", max_rows: 2 });
    expect(capped.llm).toContain("2 row(s)");
    expect(capped.llm).toContain("more rows not shown");
    const schema = await s.run(sqlQueryTool, { database: "shop.db", sql: "pragma table_info(items)" });
    expect(schema.llm).toContain("price");
  });

  it("refuses changes without write: true and leaves the file as it was", async () => {
    const s = await session();
    makeDb(path.join(s.root, "shop.db"), SHOP);
    const before = await readFile(path.join(s.root, "shop.db"));
    for (const sql of ["delete from items", "drop table items", "pragma journal_mode = delete", "create table t(x)"]) {
      const run = await s.run(sqlQueryTool, { database: "shop.db", sql });
      expect(run.error?.code, sql).toBe("DENIED");
    }
    expect((await readFile(path.join(s.root, "shop.db"))).equals(before)).toBe(true);
  });

  it("writes with write: true (asking as edits do) and saves the file", async () => {
    const s = await session();
    makeDb(path.join(s.root, "shop.db"), SHOP);
    const raw = {
      database: "shop.db",
      sql: "update items set price = 3 where name = ?",
      params: ["plum"],
      write: true,
    };
    expect(await toolForcesApproval(sqlQueryTool, raw, s.ctx)).toBe(true);
    expect(effectOf(sqlQueryTool, raw)).toBe("workspace");
    const run = await s.run(sqlQueryTool, raw);
    expect(run.llm).toBe("1 row(s) changed in shop.db.");
    const db = new DatabaseSync(path.join(s.root, "shop.db"), { readOnly: true });
    expect(db.prepare("select price from items where name = 'plum'").get()).toEqual({ price: 3 });
    db.close();
  });

  it("never opens a file by a path the query names: ATTACH and VACUUM INTO are refused, even with write", async () => {
    const s = await session();
    makeDb(path.join(s.root, "shop.db"), SHOP);
    makeDb(path.join(s.outside, "secret.db"), "create table secret(x); insert into secret values ('token');");
    const target = path.join(s.outside, "copy.db");
    for (const write of [false, true]) {
      const attach = await s.run(sqlQueryTool, {
        database: "shop.db",
        sql: `attach database '${path.join(s.outside, "secret.db")}' as s`,
        write,
      });
      expect(attach.error?.code).toBe("DENIED");
      const vacuum = await s.run(sqlQueryTool, { database: "shop.db", sql: `vacuum into '${target}'`, write });
      expect(vacuum.error?.code).toBe("DENIED");
    }
    await expect(readFile(target)).rejects.toThrow();
  });

  it("refuses a link out of the workspace, a FIFO and a file that is not SQLite", async () => {
    const s = await session();
    makeDb(path.join(s.outside, "secret.db"), "create table secret(x); insert into secret values ('token');");
    await symlink(path.join(s.outside, "secret.db"), path.join(s.root, "link.db"));
    const linked = await s.run(sqlQueryTool, { database: "link.db", sql: "select * from secret" });
    expect(linked.error).toBeDefined();
    expect(linked.llm).not.toContain("token");
    const outside = await s.run(sqlQueryTool, { database: "../ws-outside/secret.db", sql: "select * from secret" });
    expect(outside.error?.code).toBe("OUTSIDE_WORKSPACE");
    execFileSync("mkfifo", [path.join(s.root, "pipe.db")]);
    const fifo = await s.run(sqlQueryTool, { database: "pipe.db", sql: "select 1" });
    expect(fifo.error?.code).toBe("NOT_A_FILE");
    await writeFile(path.join(s.root, "notes.db"), "hello");
    const text = await s.run(sqlQueryTool, { database: "notes.db", sql: "select 1" });
    expect(text.error?.code).toBe("INVALID_INPUT");
  });

  it("stops a query that runs too long without stopping the server", async () => {
    const s = await session();
    makeDb(path.join(s.root, "shop.db"), SHOP);
    const controller = new AbortController();
    const running = s.run(
      sqlQueryTool,
      {
        database: "shop.db",
        sql: "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n",
      },
      { signal: controller.signal },
    );
    // The event loop is free while the query runs in its own thread.
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    expect((await running).error?.code).toBe("ABORTED");
  });
});

describe("sql_query on PostgreSQL", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let url: URL;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(
      "create table items(id serial primary key, name text); insert into items(name) values ('a'), ('b')",
    );
    await client.end();
    url = new URL(database.url);
  });
  afterAll(async () => {
    await database?.drop();
  });
  const allowed = () => ({
    fetchPolicy: { allowHosts: [`${url.hostname}:${url.port}`] },
    sandbox: { mode: "none" as const, network: { policy: "open" as const, allowHosts: [] }, limits: null },
  });

  it("reads through the address check when the server allows the host, and never shows the password", async () => {
    const s = await session(allowed());
    const run = await s.run(sqlQueryTool, {
      database: database.url,
      sql: "select name from items where id = $1",
      params: [2],
    });
    expect(run.error).toBeUndefined();
    expect(run.llm).toContain("1 row(s) from");
    expect(run.llm).toContain("\nb");
    if (url.password) expect(run.llm).not.toContain(url.password);
  });

  it("stays read-only: writes and COMMIT; tricks fail, and the data is unchanged", async () => {
    const s = await session(allowed());
    for (const sql of [
      "delete from items",
      "commit; delete from items",
      "set transaction read write; delete from items",
    ]) {
      const run = await s.run(sqlQueryTool, { database: database.url, sql });
      expect(run.error?.code, sql).toBe("INVALID_INPUT");
    }
    const count = await s.run(sqlQueryTool, { database: database.url, sql: "select count(*) as n from items" });
    expect(count.llm).toContain("\n2");
  });

  it("writes with write: true, which always asks a person", async () => {
    const s = await session(allowed());
    const raw = { database: database.url, sql: "insert into items(name) values ($1)", params: ["c"], write: true };
    expect(await toolForcesApproval(sqlQueryTool, raw, s.ctx)).toBe("always");
    const run = await s.run(sqlQueryTool, raw);
    expect(run.llm).toContain("1 row(s) changed");
  });

  it("refuses loopback without the server's allow-list, and any host under the project's policy off or allow-list", async () => {
    const s = await session({ sandbox: allowed().sandbox });
    const blocked = await s.run(sqlQueryTool, { database: database.url, sql: "select 1" });
    expect(blocked.error?.code).toBe("BLOCKED_ADDRESS");
    const off = await session({ fetchPolicy: allowed().fetchPolicy });
    expect((await off.run(sqlQueryTool, { database: database.url, sql: "select 1" })).error?.code).toBe(
      "NETWORK_POLICY",
    );
    const listed = await session({
      fetchPolicy: allowed().fetchPolicy,
      sandbox: { mode: "none", network: { policy: "allow-list", allowHosts: ["db.example.com"] }, limits: null },
    });
    expect((await listed.run(sqlQueryTool, { database: database.url, sql: "select 1" })).error?.code).toBe(
      "NETWORK_POLICY",
    );
    const socket = await s.run(sqlQueryTool, { database: `${database.url}?host=/var/run/postgresql`, sql: "select 1" });
    expect(socket.error?.code).toBe("INVALID_INPUT");
  });
});
