import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpWebSocketTransport } from "./websocket-transport";
import { McpTcpTransport } from "./tcp-transport";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { fetch as undiciFetch, type Agent } from "undici";
import {
  DEFAULT_TIMEOUT_MS,
  isStdio,
  isTcp,
  isWebSocketUrl,
  remoteHostOf,
  type McpServerConfig,
  type StdioServerConfig,
} from "@/lib/mcp-config";
import type { FetchPolicy } from "../define-tool";
import { guardedAgent, guardedConnector, type AddressRefusal } from "../guarded-fetch";

// One MCP server of a project: connects (stdio in the sandbox, or streamable HTTP falling back to
// SSE), lists its tools, calls them, and reconnects with backoff when it fails or exits. A
// failure only changes this connection's state; nothing is thrown at whoever holds it. A remote
// server is reached by the server itself, so every connection to it goes through web_fetch's
// address check (guarded-fetch.ts): no loopback, private, link-local or metadata address unless
// the server's admin listed the host (TANDEM_MCP_ALLOW_HOSTS); a server over TCP is held to the same
// check, in the same connector.

export type McpToolInfo = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
};

export type McpTransportKind = "stdio" | "streamable-http" | "sse" | "websocket" | "tcp";

export type McpConnectionState =
  | { status: "connecting"; attempt: number }
  | { status: "connected"; transport: McpTransportKind; tools: McpToolInfo[]; connectedAt: number }
  | { status: "failed"; error: string; attempt: number; retryAt: number | null }
  | { status: "closed" };

/** How a stdio server is started: the sandboxed command line for the configured one. */
/** Builds the sandboxed command of a stdio server; `release` frees what the launch holds (its egress listener) once the server has exited. */
/** `redact` hides the values of the secrets in the server's environment in what it printed. */
export type StdioLauncher = (config: StdioServerConfig) => Promise<{
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  release?(): void;
  redact?(text: string): string;
}>;

export type McpConnectionOptions = {
  name: string;
  config: McpServerConfig;
  launch: StdioLauncher;
  /**
   * Remote servers: the hosts the server's admin exempts from the address check (and, in tests,
   * the resolver), and the project's network policy, which refuses them all when it is off.
   */
  fetchPolicy: McpFetchPolicy;
  projectId: string;
  onChange?(state: McpConnectionState): void;
  /** Backoff between reconnects: 1 s doubling to this cap. */
  maxBackoffMs?: number;
  /** Give up reconnecting after this many failures in a row (the UI can still reconnect). */
  maxAttempts?: number;
};

export type McpConnection = ReturnType<typeof createMcpConnection>;

export type McpFetchPolicy = Pick<FetchPolicy, "allowHosts" | "resolve" | "projectNetwork">;

const CONNECT_TIMEOUT_MS = 15_000;
const STDERR_TAIL = 2_000;

export function createMcpConnection(options: McpConnectionOptions) {
  const { config } = options;
  const timeout = config.timeout ?? DEFAULT_TIMEOUT_MS;
  const maxBackoff = options.maxBackoffMs ?? 60_000;
  const maxAttempts = options.maxAttempts ?? 8;
  let state: McpConnectionState = { status: "closed" };
  let client: Client | null = null;
  let attempt = 0;
  let retryTimer: NodeJS.Timeout | null = null;
  let closed = false;
  let connecting: Promise<void> | null = null;
  let stderrTail = "";
  let refused: AddressRefusal | null = null;
  const onRefused = (r: AddressRefusal) => {
    refused = r;
  };
  const dispatcher: Agent | null =
    isStdio(config) || isTcp(config)
      ? null
      : guardedAgent(options.fetchPolicy.allowHosts, options.fetchPolicy.resolve, onRefused);
  const guardedFetch = ((url, init) => undiciFetch(url, { ...(init as object), dispatcher: dispatcher! })) as FetchLike;

  const set = (next: McpConnectionState) => {
    state = next;
    options.onChange?.(next);
  };

  async function open(): Promise<{ client: Client; transport: McpTransportKind }> {
    if (isStdio(config)) {
      const { release, redact, ...launch } = await options.launch(config);
      const transport = new StdioClientTransport({ ...launch, stderr: "pipe" });
      // The client chains its own close handler after this one.
      if (release) transport.onclose = release;
      stderrTail = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        // Whole, then redacted: a secret's value cut across two chunks is still found.
        const whole = stderrTail + chunk.toString("utf8");
        stderrTail = (redact ? redact(whole) : whole).slice(-STDERR_TAIL);
      });
      return { client: await handshake(transport), transport: "stdio" };
    }
    await refuseWhenNetworkOff();
    if (isTcp(config)) {
      const connector = guardedConnector(options.fetchPolicy.allowHosts, options.fetchPolicy.resolve, onRefused);
      return {
        client: await handshake(new McpTcpTransport(config.tcp.host, config.tcp.port, connector)),
        transport: "tcp",
      };
    }
    const url = new URL(config.url);
    const init = { requestInit: { headers: config.headers ?? {} }, fetch: guardedFetch };
    if (isWebSocketUrl(config.url))
      return {
        client: await handshake(new McpWebSocketTransport(url, config.headers ?? {}, dispatcher!)),
        transport: "websocket",
      };
    if (config.type === "sse") return { client: await handshake(new SSEClientTransport(url, init)), transport: "sse" };
    try {
      return { client: await handshake(new StreamableHTTPClientTransport(url, init)), transport: "streamable-http" };
    } catch (error) {
      if (config.type === "http" || config.type === "streamable-http" || error instanceof TimeoutError || refused)
        throw error;
      // Older servers speak only the HTTP+SSE transport.
      try {
        return { client: await handshake(new SSEClientTransport(url, init)), transport: "sse" };
      } catch {
        throw error;
      }
    }
  }

  /** A remote server is reached by the server for the project, so the project's policy "off" refuses it. */
  async function refuseWhenNetworkOff() {
    if (isStdio(config) || !options.fetchPolicy.projectNetwork) return;
    if ((await options.fetchPolicy.projectNetwork(options.projectId)).policy === "off") {
      throw new McpUnavailableError(
        `refused: this project's network policy is off, so Tandem's server connects to no remote MCP server for it. A project owner or admin can change the policy in the project settings (Network), or run the server over stdio in the project's sandbox.`,
      );
    }
  }

  async function handshake(transport: Transport): Promise<Client> {
    const next = new Client({ name: "tandem", version: "0.1.0" }, { capabilities: {} });
    const budget = Math.min(timeout, CONNECT_TIMEOUT_MS);
    try {
      await withTimeout(
        next.connect(transport, { timeout: budget }),
        budget,
        `did not finish the MCP handshake within ${budget / 1000} s`,
      );
      return next;
    } catch (error) {
      await next.close().catch(() => {});
      await transport.close().catch(() => {});
      throw error;
    }
  }

  async function listAllTools(c: Client): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.listTools(cursor ? { cursor } : {}, { timeout });
      for (const t of page.tools) {
        tools.push({
          name: t.name,
          title: t.title,
          description: t.description,
          inputSchema: t.inputSchema as Record<string, unknown>,
          annotations: t.annotations,
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  async function connectOnce() {
    attempt += 1;
    refused = null;
    set({ status: "connecting", attempt });
    try {
      const opened = await open();
      if (closed) {
        await opened.client.close().catch(() => {});
        return;
      }
      const tools = await listAllTools(opened.client);
      client = opened.client;
      opened.client.onclose = () => {
        if (client !== opened.client || closed) return;
        client = null;
        fail(new Error("the server closed the connection (it may have exited)"));
      };
      attempt = 0;
      set({ status: "connected", transport: opened.transport, tools, connectedAt: Date.now() });
    } catch (error) {
      fail(error);
    }
  }

  function fail(error: unknown) {
    if (closed) return;
    const retry = attempt < maxAttempts;
    const delay = Math.min(1000 * 2 ** Math.max(0, attempt - 1), maxBackoff);
    set({
      status: "failed",
      error: describeFailure(error, config, stderrTail, refused),
      attempt,
      retryAt: retry ? Date.now() + delay : null,
    });
    if (retry) {
      retryTimer = setTimeout(() => {
        retryTimer = null;
        void connect();
      }, delay);
      retryTimer.unref();
    }
  }

  function connect(): Promise<void> {
    connecting ??= connectOnce().finally(() => {
      connecting = null;
    });
    return connecting;
  }

  return {
    name: options.name,
    config,
    get state() {
      return state;
    },
    connect,
    /** Resolves once the current connection attempt has settled (connected or failed). */
    ready(): Promise<void> {
      return connecting ?? Promise.resolve();
    },
    /** Drops the backoff and connects now (the settings page's Reconnect). */
    async reconnect() {
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      const old = client;
      client = null;
      await old?.close().catch(() => {});
      attempt = 0;
      await connect();
    },
    async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
      if (!client && state.status !== "connecting") await connect();
      else await connecting;
      if (!client) {
        const reason = state.status === "failed" ? state.error : "it is not connected";
        throw new McpUnavailableError(`MCP server "${options.name}" is unavailable: ${reason}`);
      }
      await refuseWhenNetworkOff().catch((error: Error) => {
        throw new McpUnavailableError(`MCP server "${options.name}" is unavailable: ${error.message}`);
      });
      return (await client.callTool({ name: tool, arguments: args }, undefined, { timeout, signal })) as CallToolResult;
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const old = client;
      client = null;
      await old?.close().catch(() => {});
      await dispatcher?.destroy().catch(() => {});
      set({ status: "closed" });
    },
  };
}

export class McpUnavailableError extends Error {}
class TimeoutError extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(message)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** A reason a person can act on: the missing command, the refused URL, what the server printed. */
function describeFailure(
  error: unknown,
  config: McpServerConfig,
  stderr: string,
  refused: AddressRefusal | null,
): string {
  const err = error as NodeJS.ErrnoException;
  let message = err?.message ?? String(error);
  if (refused && !isStdio(config)) {
    const what =
      refused.host.replace(/^\[|\]$/g, "") === refused.address
        ? refused.address
        : `${refused.host} (${refused.address})`;
    message =
      `refused: ${what} is not a public address (${refused.why}), and Tandem's server connects to remote MCP servers only on public addresses. ` +
      `Run a local server as a stdio server (it runs in the project's sandbox), or ask the server's admin to allow this one with TANDEM_MCP_ALLOW_HOSTS=${remoteHostOf(config)}.`;
  } else if (isStdio(config)) {
    if (err?.code === "ENOENT" || /ENOENT|No such file or directory|execvp/.test(`${message} ${stderr}`)) {
      message = `command not found: ${config.command} (is it installed, and on PATH inside the sandbox?)`;
    } else if (/MCP error -32000: Connection closed|closed the connection/.test(message) && stderr.trim()) {
      message = `the server exited: ${errorLine(stderr)}`;
    }
  } else if (err?.cause && typeof err.cause === "object" && "code" in err.cause) {
    message = `${message} (${String((err.cause as { code: unknown }).code)})`;
  }
  return message.slice(0, 500);
}

// What a crashed server printed ends in a stack trace and runtime chatter ("    at ...",
// "Node.js v20", a caret under the source line); the line that says what went wrong is the last
// one naming an error, else the last line that is not that noise.
const STDERR_NOISE = /^(at\s|Node\.js v\d|\^+$|\.\.\.\s*\d+ more|[{}]$|File ".*", line \d+)/;
const ERROR_LINE = /\b(\w*Error|\w*Exception|error|fatal|panic)\b/i;

function errorLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !STDERR_NOISE.test(line));
  return [...lines].reverse().find((line) => ERROR_LINE.test(line)) ?? lines.at(-1) ?? "";
}
