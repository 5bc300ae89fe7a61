import { z } from "zod";

// What the destructive-command guard looks for, set by the server's admins (admin page). Each
// check can be turned off and its word lists changed; `alwaysAsk` adds command prefixes of the
// admins' own. A command name also matches its dotted variants (`mkfs` matches `mkfs.ext4`).
// The agent's `git push` always asks and is not configurable.

const names = z.array(z.string().trim().min(1).max(100)).max(100);

export const commandGuardConfigSchema = z.object({
  recursiveDelete: z
    .object({
      enabled: z.boolean().default(true),
      /** Where recursive deletes do not ask: workspace-relative folders, or absolute paths such as /tmp. */
      scratchPaths: names.default([
        "tmp",
        ".tandem/tmp",
        "node_modules",
        "dist",
        "build",
        ".next",
        "coverage",
        ".cache",
        "target",
        "/tmp",
      ]),
    })
    .default({
      enabled: true,
      scratchPaths: [
        "tmp",
        ".tandem/tmp",
        "node_modules",
        "dist",
        "build",
        ".next",
        "coverage",
        ".cache",
        "target",
        "/tmp",
      ],
    }),
  gitRewrite: z.object({ enabled: z.boolean().default(true) }).default({ enabled: true }),
  recursivePermissions: z
    .object({ enabled: z.boolean().default(true), commands: names.default(["chmod", "chown", "chgrp"]) })
    .default({ enabled: true, commands: ["chmod", "chown", "chgrp"] }),
  diskTools: z
    .object({
      enabled: z.boolean().default(true),
      commands: names.default(["dd", "mkfs", "fdisk", "sfdisk", "parted", "wipefs", "shred"]),
    })
    .default({ enabled: true, commands: ["dd", "mkfs", "fdisk", "sfdisk", "parted", "wipefs", "shred"] }),
  downloadToShell: z
    .object({
      enabled: z.boolean().default(true),
      downloaders: names.default(["curl", "wget", "fetch", "http"]),
      interpreters: names.default([
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "python",
        "python3",
        "perl",
        "ruby",
        "node",
      ]),
    })
    .default({
      enabled: true,
      downloaders: ["curl", "wget", "fetch", "http"],
      interpreters: ["sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node"],
    }),
  dropDatabase: z
    .object({
      enabled: z.boolean().default(true),
      /** Command prefixes that drop or wipe a database. */
      commands: names.default([
        "dropdb",
        "mysqladmin drop",
        "prisma migrate reset",
        "redis-cli flushall",
        "redis-cli flushdb",
      ]),
      /** Database clients: a `DROP DATABASE`/`DROP SCHEMA` given to one of these (as an argument or piped in) asks. */
      clients: names.default([
        "psql",
        "mysql",
        "mariadb",
        "sqlite3",
        "mongosh",
        "mongo",
        "sqlcmd",
        "clickhouse-client",
        "cockroach",
        "duckdb",
      ]),
    })
    .default({
      enabled: true,
      commands: ["dropdb", "mysqladmin drop", "prisma migrate reset", "redis-cli flushall", "redis-cli flushdb"],
      clients: [
        "psql",
        "mysql",
        "mariadb",
        "sqlite3",
        "mongosh",
        "mongo",
        "sqlcmd",
        "clickhouse-client",
        "cockroach",
        "duckdb",
      ],
    }),
  alwaysAsk: z
    .array(z.object({ prefix: z.string().trim().min(1).max(200), reason: z.string().trim().min(1).max(300) }))
    .max(100)
    .default([]),
});

export type CommandGuardConfig = z.output<typeof commandGuardConfigSchema>;
export const DEFAULT_COMMAND_GUARD: CommandGuardConfig = commandGuardConfigSchema.parse({});
