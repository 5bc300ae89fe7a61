// Types for scripts/free-port.mjs, which scripts/e2e.mjs runs with plain Node.
export function freePort(): Promise<number>;
