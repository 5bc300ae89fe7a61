import path from "node:path";
import { z } from "zod";

// The only reader of process.env. Everything else receives a typed Config.

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  TANDEM_DATA_DIR: z.string().min(1).default("./.tandem"),
  DATABASE_URL: optionalString.pipe(
    z.url({ protocol: /^postgres(ql)?$/, message: "must be a postgres:// or postgresql:// URL" }).optional(),
  ),
  TANDEM_SANDBOX: z.enum(["bwrap", "none"]).optional(),
  TANDEM_PUBLIC_URL: optionalString.pipe(z.url({ message: "must be a URL such as https://tandem.example.com" }).optional()),
  BETTER_AUTH_SECRET: optionalString.pipe(
    z.string().min(32, "must be at least 32 characters (generate one with `openssl rand -hex 32`)").optional(),
  ),
  TANDEM_IMPORT_ROOTS: optionalString,
  TANDEM_DEV: optionalString,
});

export type Config = {
  dev: boolean;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  sandbox: "bwrap" | "none" | undefined;
  publicUrl: string | undefined;
  authSecret: string | undefined;
  importRoots: string[];
};

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}\nSee README.md, "Configuration".`);
  }
  const e = parsed.data;
  return {
    dev: e.TANDEM_DEV === "1",
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.TANDEM_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    sandbox: e.TANDEM_SANDBOX,
    publicUrl: e.TANDEM_PUBLIC_URL,
    authSecret: e.BETTER_AUTH_SECRET,
    importRoots: (e.TANDEM_IMPORT_ROOTS ?? "")
      .split(path.delimiter)
      .filter(Boolean)
      .map((root) => path.resolve(root)),
  };
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
