// Generates the Prisma client offline. Every Prisma CLI command first looks for the schema-engine
// binary and tries to download it; `generate` never runs it, so pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file lets it work without network (STACK.md).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createHash } from "node:crypto";

const CLIENT_CLASS = "generated/prisma/internal/class.ts";
/** How the generated client loads its query compiler: a module whose only export is the wasm in base64. */
const WASM_IMPORT =
  /const \{ wasm \} = await import\("([^"]+\.wasm-base64\.mjs)"\)\n(\s*)return await decodeBase64AsWasm\(wasm\)/;

/**
 * The client reads its query compiler's base64 as text instead of importing it: an imported
 * module's source (4.6 MB) and its string (4.6 MB more) stay in the server's heap for as long as it
 * runs, for a wasm module compiled once at start. Done on every run (it is idempotent), so a client
 * generated before this still gets it; a client whose code differs keeps its import, with a warning.
 */
const MARK = "Read as text, not imported";

function readWasmAsText() {
  if (!existsSync(CLIENT_CLASS)) return;
  const code = readFileSync(CLIENT_CLASS, "utf8");
  const found = WASM_IMPORT.exec(code);
  if (!found) {
    if (!code.includes(MARK))
      console.warn(`prisma-generate: ${CLIENT_CLASS} no longer imports its wasm as expected; left as is`);
    return;
  }
  const [, specifier, indent] = found;
  const replacement = [
    `// ${MARK} (scripts/prisma-generate.mjs)`,
    `const { readFile } = await import("node:fs/promises")`,
    `const { createRequire } = await import("node:module")`,
    `const text = await readFile(createRequire(import.meta.url).resolve(${JSON.stringify(specifier)}), "utf8")`,
    `const start = text.indexOf('"') + 1`,
    `return await decodeBase64AsWasm(text.slice(start, text.indexOf('"', start)))`,
  ].join(`\n${indent}`);
  writeFileSync(CLIENT_CLASS, code.replace(WASM_IMPORT, replacement));
}

const schema = "prisma/schema.prisma";
const stamp = "generated/prisma/.schema-hash";
const hash = createHash("sha256").update(readFileSync(schema)).digest("hex");
const force = process.argv.includes("--force");

if (!force && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) {
  readWasmAsText();
  process.exit(0);
}

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], {
  stdio: "inherit",
  env,
});
if (result.status !== 0) process.exit(result.status ?? 1);
mkdirSync("generated/prisma", { recursive: true });
writeFileSync(stamp, hash);
readWasmAsText();
