// Types for scripts/prepare-static.mjs, which scripts/start.mjs runs with plain Node after a build.
export const COMPILE_HINT: string;
export function prepareStatic(staticDir: string): Promise<{ before: number; after: number }>;
