import { z } from "zod";
import { isReservedSecretName } from "./secrets";

// The `mcpServers` JSON shape that other agent CLIs use (Claude Code, gemini-cli, Cursor), shared by
// the server and the settings page (which checks it as you type):
//   { "mcpServers": { "<name>": { "command", "args", "env", "cwd" } | { "url", "headers" }, ... } }
// plus `timeout` (ms per request), `trust`, `includeTools`, `excludeTools`, and `eager` (always
// send this server's schemas, even when the project has so many tools that schemas are deferred).
// The outer `mcpServers` key is optional: a bare map of servers is accepted too, and so is VS Code's
// `servers`. Other tools' spellings are read as theirs: gemini-cli's `httpUrl` (streamable HTTP),
// Windsurf's `serverUrl`, `"type": "http" | "sse" | "stdio"` as Claude Code and Cursor write it,
// and a WebSocket server as a `ws://`/`wss://` url (or `"type": "ws"`). A server reached over plain
// TCP (newline-delimited JSON-RPC, as over stdio) is `{ "tcp": { "host", "port" } }`, as Wren has it.

export const SERVER_NAME = /^[A-Za-z0-9_-]{1,40}$/;
export const DEFAULT_TIMEOUT_MS = 30_000;

const common = {
  timeout: z.number().int().min(100).max(600_000).optional(),
  trust: z.boolean().optional(),
  includeTools: z.array(z.string().min(1)).optional(),
  excludeTools: z.array(z.string().min(1)).optional(),
  eager: z.boolean().optional(),
  description: z.string().max(500).optional(),
};

const stdioServer = z.strictObject({
  ...common,
  type: z.literal("stdio").optional(),
  command: z.string().min(1, "command must not be empty"),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
});

const remoteServer = z
  .strictObject({
    ...common,
    type: z.enum(["http", "streamable-http", "sse", "ws", "websocket"]).optional(),
    url: z.url({
      protocol: /^(https?|wss?)$/,
      message: "url must be an http(s):// URL, or ws(s):// for a WebSocket server",
    }),
    headers: z.record(z.string(), z.string()).optional(),
  })
  .refine(
    (c) =>
      isWebSocketUrl(c.url) ===
      (c.type === undefined ? isWebSocketUrl(c.url) : c.type === "ws" || c.type === "websocket"),
    {
      path: ["type"],
      message:
        "a WebSocket server has a ws:// or wss:// url; http, streamable-http and sse servers have an http(s):// url",
    },
  );

export const isWebSocketUrl = (url: string) => /^wss?:/i.test(url);

const tcpServer = z.strictObject({
  ...common,
  type: z.literal("tcp").optional(),
  tcp: z.strictObject({
    host: z
      .string()
      .min(1, "host must not be empty")
      .max(253)
      .regex(/^[A-Za-z0-9.:_[\]-]+$/, "host is a host name or an IP address"),
    port: z.number().int().min(1).max(65_535, "port is a TCP port, 1 to 65535"),
  }),
});

/** Other tools' spellings of a remote server, as this shape: gemini-cli's httpUrl, Windsurf's serverUrl. */
function normalize(raw: unknown): unknown {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return raw;
  const { httpUrl, serverUrl, ...rest } = raw as Record<string, unknown>;
  if (httpUrl !== undefined && !("url" in rest)) return { ...rest, url: httpUrl, type: rest.type ?? "http" };
  if (serverUrl !== undefined && !("url" in rest)) return { ...rest, url: serverUrl };
  return raw;
}

export type StdioServerConfig = z.infer<typeof stdioServer>;
export type RemoteServerConfig = z.infer<typeof remoteServer>;
export type TcpServerConfig = z.infer<typeof tcpServer>;
export type McpServerConfig = StdioServerConfig | RemoteServerConfig | TcpServerConfig;
export type McpServersConfig = Record<string, McpServerConfig>;

export type ConfigProblem = { path: string; message: string; line?: number };
export type ParsedConfig = { ok: true; servers: McpServersConfig } | { ok: false; problems: ConfigProblem[] };

const KEY_ORDER = [
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "tcp",
  "timeout",
  "trust",
  "eager",
  "includeTools",
  "excludeTools",
  "description",
];

/** The saved servers as text, each server's keys in the documented order (Postgres JSONB does not keep the typed order). */
export function formatMcpServers(servers: Record<string, unknown>): string {
  const ordered = Object.fromEntries(
    Object.entries(servers).map(([name, config]) => [
      name,
      config && typeof config === "object"
        ? Object.fromEntries(Object.entries(config).sort(([a], [b]) => KEY_ORDER.indexOf(a) - KEY_ORDER.indexOf(b)))
        : config,
    ]),
  );
  return JSON.stringify({ mcpServers: ordered }, null, 2);
}

/** What people who may not change the servers see of them: each `env` and `headers` value hidden, the names kept. */
export function hideMcpValues(servers: Record<string, unknown>): Record<string, unknown> {
  const hide = (map: unknown) =>
    map && typeof map === "object" && !Array.isArray(map)
      ? Object.fromEntries(Object.keys(map).map((name) => [name, HIDDEN_VALUE]))
      : map;
  return Object.fromEntries(
    Object.entries(servers).map(([name, config]) => {
      if (!config || typeof config !== "object" || Array.isArray(config)) return [name, config];
      const { env, headers, ...rest } = config as Record<string, unknown>;
      return [
        name,
        {
          ...rest,
          ...(env !== undefined ? { env: hide(env) } : {}),
          ...(headers !== undefined ? { headers: hide(headers) } : {}),
        },
      ];
    }),
  );
}

/** Shown instead of a value of an MCP server's `env` or `headers` to people who are not the project's admins. */
export const HIDDEN_VALUE = "(hidden: only the project's owners and admins see it)";

export const isStdio = (config: McpServerConfig): config is StdioServerConfig => "command" in config;
export const isTcp = (config: McpServerConfig): config is TcpServerConfig => "tcp" in config;

/** Where Tandem's server connects for a remote or TCP server: `host:port`, as the allow-list names it. */
export function remoteHostOf(config: RemoteServerConfig | TcpServerConfig): string {
  if (isTcp(config)) {
    const host =
      config.tcp.host.includes(":") && !config.tcp.host.startsWith("[") ? `[${config.tcp.host}]` : config.tcp.host;
    return `${host}:${config.tcp.port}`;
  }
  return new URL(config.url).host;
}

/** Parses the settings text; every problem names where it is (`mcpServers.docs.url`) and, for JSON syntax, the line. */
export function parseMcpServersText(text: string): ParsedConfig {
  if (!text.trim()) return { ok: true, servers: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message)?.[1];
    const line = position === undefined ? undefined : text.slice(0, Number(position)).split("\n").length;
    const reason = message.replace(/\s*(in JSON )?at position \d+.*$/s, "");
    return {
      ok: false,
      problems: [{ path: "(json)", message: `Malformed JSON: ${reason}`, ...(line ? { line } : {}) }],
    };
  }
  const parsed = parseMcpServers(value);
  if (!parsed.ok) return parsed;
  const problems = Object.entries(parsed.servers).flatMap(([name, config]) =>
    Object.keys((isStdio(config) && config.env) || {})
      .filter(isReservedSecretName)
      .map((variable) => ({
        path: `mcpServers.${name}.env.${variable}`,
        message: `${variable} is set by Tandem's sandbox or changes how programs start (PATH, HOME, LD_*, proxy and certificate variables...), so the server would not get it: leave it out or set it in \`args\` (for example \`sh -c 'export ${variable}=...; exec server'\`).`,
      })),
  );
  return problems.length ? { ok: false, problems } : parsed;
}

export function parseMcpServers(value: unknown): ParsedConfig {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return {
      ok: false,
      problems: [{ path: "(root)", message: 'Expected an object: { "mcpServers": { "<name>": { ... } } }' }],
    };
  }
  const root = value as Record<string, unknown>;
  const key =
    "mcpServers" in root ? "mcpServers" : "servers" in root && typeof root.servers === "object" ? "servers" : null;
  const map = key ? root[key] : root;
  const prefix = key ?? "";
  if (!map || typeof map !== "object" || Array.isArray(map)) {
    return {
      ok: false,
      problems: [{ path: prefix || "(root)", message: "mcpServers must be an object keyed by server name" }],
    };
  }
  const problems: ConfigProblem[] = [];
  const servers: McpServersConfig = {};
  for (const [name, given] of Object.entries(map as Record<string, unknown>)) {
    const raw = normalize(given);
    const at = prefix ? `${prefix}.${name}` : name;
    if (!SERVER_NAME.test(name)) {
      problems.push({
        path: at,
        message: "server names use letters, digits, _ and - only (at most 40); tools are named <server>__<tool>",
      });
      continue;
    }
    if (name.includes("__")) {
      problems.push({
        path: at,
        message: "server names must not contain __ (it separates server and tool in tool names)",
      });
      continue;
    }
    const keys = raw && typeof raw === "object" ? ["url", "command", "tcp"].filter((k) => k in raw) : [];
    const shape =
      keys.length !== 1 ? null : keys[0] === "url" ? remoteServer : keys[0] === "command" ? stdioServer : tcpServer;
    if (!shape) {
      problems.push({
        path: at,
        message:
          "give one of `command` (a local server over stdio), `url` (a remote server) or `tcp` ({ host, port }: a server over TCP)",
      });
      continue;
    }
    const parsed = shape.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push({ path: [at, ...issue.path.map(String)].join("."), message: issue.message });
      }
      continue;
    }
    servers[name] = parsed.data;
  }
  return problems.length ? { ok: false, problems } : { ok: true, servers };
}

/** Whether the server's tool passes its include and exclude lists (exclude wins). */
export function toolAllowed(config: McpServerConfig, tool: string): boolean {
  if (config.excludeTools?.includes(tool)) return false;
  return !config.includeTools || config.includeTools.includes(tool);
}
