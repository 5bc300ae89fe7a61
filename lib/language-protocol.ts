import { z } from "zod";

// The language-server socket carries LSP's JSON-RPC messages, one per text frame, between an
// editor and its project's shared server (server/language/hub.ts).

export const LANGUAGE_WS_PATH = "/api/language/ws";

/** Big enough for a whole large source file in one didOpen. */
export const MAX_LANGUAGE_FRAME_BYTES = 8 << 20;

const id = z.union([z.number().int(), z.string().max(100)]);

/** The shape of a JSON-RPC 2.0 request, notification or response; params stay opaque to the socket. */
export const jsonRpcMessageSchema = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id, method: z.string().min(1).max(200), params: z.unknown().optional() }),
  z.object({ jsonrpc: z.literal("2.0"), method: z.string().min(1).max(200), params: z.unknown().optional() }),
  z.object({ jsonrpc: z.literal("2.0"), id: id.nullable(), result: z.unknown().optional(), error: z.unknown().optional() }),
]);

export function languageSocketUrl(location: { protocol: string; host: string }, projectId: string, server: string): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${LANGUAGE_WS_PATH}?projectId=${encodeURIComponent(projectId)}&server=${encodeURIComponent(server)}`;
}

/** Close codes the editor reacts to. */
export const LanguageCloseCode = { protocolError: 4400 } as const;
