import { isWorkspaceError, type WorkspaceErrorCode } from "@/server/workspace";
import type { ToolDisplay, ToolErrorCode } from "@/lib/tool-display";
import type { LlmContent, ToolResult } from "./define-tool";

/** Thrown inside a tool for an error the model can fix; the wrapper turns it into a result. */
export class ToolFailure extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
    readonly meta?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ToolFailure";
  }
}

export function ok(llm: LlmContent, display?: ToolDisplay, meta?: Record<string, unknown>): ToolResult {
  return {
    llm,
    display: display ?? { kind: "text", text: typeof llm === "string" ? llm : textOf(llm) },
    ...(meta ? { meta } : {}),
  };
}

/** A result that is a JSON value: the model receives it as JSON and people see it as JSON. */
export function okJson(value: unknown, meta?: Record<string, unknown>): ToolResult {
  return {
    llm: JSON.stringify(value, null, 2),
    display: { kind: "json", value },
    json: true,
    ...(meta ? { meta } : {}),
  };
}

export function failure(code: ToolErrorCode, message: string, meta?: Record<string, unknown>): ToolResult {
  return {
    llm: `Error [${code}]: ${message}`,
    display: { kind: "error", code, message },
    error: { code, message },
    ...(meta ? { meta } : {}),
  };
}

const FROM_WORKSPACE: Record<WorkspaceErrorCode, ToolErrorCode> = {
  OUTSIDE_WORKSPACE: "OUTSIDE_WORKSPACE",
  INVALID_PATH: "INVALID_PATH",
  NOT_FOUND: "NOT_FOUND",
  EXISTS: "EXISTS",
  CONFLICT: "STALE_READ",
  IS_DIRECTORY: "IS_DIRECTORY",
  NOT_A_DIRECTORY: "NOT_A_DIRECTORY",
  NOT_A_FILE: "NOT_A_FILE",
  TOO_LARGE: "TOO_LARGE",
  DISK_FULL: "DISK_FULL",
  IO_ERROR: "INTERNAL",
};

/** A thrown error as a result: known failures keep their code, anything else is INTERNAL. */
export function resultFromError(error: unknown, signal?: AbortSignal): ToolResult {
  if (error instanceof ToolFailure) return failure(error.code, error.message, error.meta);
  if (isWorkspaceError(error)) return failure(FROM_WORKSPACE[error.code], error.message);
  if (signal?.aborted || (error instanceof Error && error.name === "AbortError")) {
    return failure("ABORTED", "The call was cancelled before it finished.");
  }
  const message = error instanceof Error ? error.message : String(error);
  return failure("INTERNAL", `The tool failed unexpectedly: ${message}`);
}

export function textOf(llm: LlmContent): string {
  if (typeof llm === "string") return llm;
  return llm.map((part) => (part.type === "text" ? part.text : `[image ${part.mediaType}]`)).join("\n");
}

/** Size of what the model receives, in bytes (images by their base64 length). */
export function llmSize(llm: LlmContent): number {
  if (typeof llm === "string") return Buffer.byteLength(llm);
  return llm.reduce((sum, part) => sum + (part.type === "text" ? Buffer.byteLength(part.text) : part.data.length), 0);
}
