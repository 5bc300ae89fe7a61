import { z } from "zod";

// Output travels as binary frames (UTF-8 bytes of the PTY stream); everything else is JSON text.

export const TERMINAL_WS_PATH = "/api/terminal/ws";

/** Client acknowledges this many output bytes once xterm.js has parsed them. */
export const ACK_EVERY_BYTES = 64 * 1024;

const MAX_INPUT_CHARS = 64 * 1024;
/** The most rows a client's terminal may have. */
export const MAX_TERMINAL_ROWS = 500;

export const clientMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("input"), data: z.string().max(MAX_INPUT_CHARS) }),
  z.object({
    type: z.literal("resize"),
    cols: z.number().int().min(2).max(1000),
    rows: z.number().int().min(1).max(MAX_TERMINAL_ROWS),
  }),
  z.object({
    type: z.literal("ack"),
    bytes: z
      .number()
      .int()
      .nonnegative()
      .max(1 << 30),
  }),
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

export const serverMessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("snapshot"), data: z.string(), cols: z.number(), rows: z.number() }),
  z.object({ type: z.literal("exit"), code: z.number().int().nullable() }),
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** Close codes the client reacts to. */
export const TerminalCloseCode = {
  /** The client fell too far behind; reconnect and resync from a snapshot. */
  slowConsumer: 4001,
  /** The terminal was closed on the server; do not reconnect. */
  terminalClosed: 4004,
  /** The person's access to the project ended (removed from its team, signed out, project deleted); do not reconnect. */
  accessEnded: 4403,
  /** The client sent something that is not a valid message. */
  protocolError: 4400,
} as const;

export function terminalSocketUrl(
  location: { protocol: string; host: string },
  projectId: string,
  terminalId: string,
): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams({ projectId, terminalId });
  return `${scheme}//${location.host}${TERMINAL_WS_PATH}?${query.toString()}`;
}

export function parseClientMessage(raw: string): ClientMessage | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const result = clientMessageSchema.safeParse(json);
  return result.success ? result.data : null;
}

export function parseServerMessage(raw: string): ServerMessage | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const result = serverMessageSchema.safeParse(json);
  return result.success ? result.data : null;
}
