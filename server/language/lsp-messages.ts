import type { NotificationMessage, ResponseMessage } from "vscode-jsonrpc/node";

// The JSON-RPC messages the hub makes itself, and the error codes it answers with.

export const INVALID_PARAMS = -32602;
export const REQUEST_FAILED = -32803;
export const SERVER_CANCELLED = -32802;

export function notification(method: string, params: unknown): NotificationMessage {
  return { jsonrpc: "2.0", method, params } as NotificationMessage;
}

export function errorResponse(id: number | string, code: number, message: string): ResponseMessage {
  return { jsonrpc: "2.0", id, error: { code, message } } as ResponseMessage;
}
