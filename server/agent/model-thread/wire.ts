import { APICallError } from "@ai-sdk/provider";

// What crosses between the server's thread and the model thread. Messages are structured clones,
// which keep plain data, Dates and bytes but not classes: an Error arrives as a bare Error (no
// APICallError with its status and retryability, which retries and error messages depend on), and
// a URL cannot be sent at all. Both are turned into data here and back on the other side.

export type WireError = {
  name: string;
  message: string;
  stack?: string;
  cause?: WireError;
  /** An APICallError's fields; the request body is left out (it is the whole prompt). */
  api?: {
    url: string;
    statusCode?: number;
    responseHeaders?: Record<string, string>;
    responseBody?: string;
    isRetryable: boolean;
    data?: unknown;
  };
};

export function toWire(error: unknown, depth = 0): WireError {
  if (!(error instanceof Error))
    return { name: "Error", message: typeof error === "string" ? error : safeString(error) };
  const wire: WireError = { name: error.name, message: error.message, stack: error.stack };
  if (error.cause !== undefined && depth < 3) wire.cause = toWire(error.cause, depth + 1);
  if (APICallError.isInstance(error)) {
    const { url, statusCode, responseHeaders, responseBody, isRetryable, data } = error;
    wire.api = { url, statusCode, responseHeaders, responseBody, isRetryable, data: cloneable(data) };
  }
  return wire;
}

export function fromWire(wire: WireError): Error {
  const cause = wire.cause ? fromWire(wire.cause) : undefined;
  const error = wire.api
    ? new APICallError({ message: wire.message, requestBodyValues: undefined, cause, ...wire.api })
    : Object.assign(new Error(wire.message, cause ? { cause } : undefined), { name: wire.name });
  if (wire.stack) error.stack = wire.stack;
  return error;
}

const URL_KEY = "__tandemUrl";

/** A copy of `value` with each URL in it replaced by a marker holding its address. */
export function urlsToWire<T>(value: T): T {
  return mapUrls(value, (url) => ({ [URL_KEY]: url.href })) as T;
}

/** The inverse of urlsToWire. */
export function urlsFromWire<T>(value: T): T {
  return mapUrls(value, undefined, (marker) => new URL(marker[URL_KEY] as string)) as T;
}

function mapUrls(
  value: unknown,
  out?: (url: URL) => unknown,
  back?: (marker: Record<string, unknown>) => unknown,
): unknown {
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value) || value instanceof Date) return value;
  if (value instanceof URL) return out ? out(value) : value;
  if (Array.isArray(value)) return value.map((item) => mapUrls(item, out, back));
  const record = value as Record<string, unknown>;
  if (back && typeof record[URL_KEY] === "string" && Object.keys(record).length === 1) return back(record);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record)) copy[key] = mapUrls(record[key], out, back);
  return copy;
}

function cloneable(data: unknown): unknown {
  try {
    structuredClone(data);
    return data;
  } catch {
    return safeString(data);
  }
}

function safeString(value: unknown): string {
  try {
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  } catch {
    return String(value);
  }
}
