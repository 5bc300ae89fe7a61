import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// The schema side is not parsed by hand: the Prisma CLI ships its schema engine as WebAssembly
// (node_modules/prisma/build/prisma_schema_build_bg.wasm, the code behind `prisma validate` and
// `prisma generate`), whose `get_dmmf` returns the fully resolved data model. The CLI bundles the
// JS glue for that module inside cli.js, so this file carries the ~30 lines of wasm-bindgen glue
// itself (loadSchemaWasm). The one thing the DMMF leaves out is a foreign key's custom name
// (`@relation(..., map: "...")`), read from the schema text by relationMapNames.

export type DmmfField = {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "enum" | "object" | "unsupported";
  type: string;
  isList: boolean;
  isRequired: boolean;
  isUpdatedAt: boolean;
  hasDefaultValue: boolean;
  default?: unknown;
  nativeType?: [string, string[]] | null;
  relationName?: string;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
};
export type DmmfModel = { name: string; dbName: string | null; schema: string | null; fields: DmmfField[] };
type DmmfEnum = { name: string; dbName?: string | null; values: { name: string; dbName: string | null }[] };
type DmmfIndex = {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  dbName?: string;
  algorithm?: string;
  fields: { name: string; sortOrder?: "asc" | "desc"; operatorClass?: string }[];
};
export type Datamodel = { models: DmmfModel[]; enums: DmmfEnum[]; indexes: DmmfIndex[] };

type SchemaWasm = { getDmmf(schema: string): { datamodel: Datamodel } };
let schemaWasm: SchemaWasm | undefined;

function loadSchemaWasm(): SchemaWasm {
  const require = createRequire(import.meta.url);
  const file = path.join(path.dirname(require.resolve("prisma/package.json")), "build/prisma_schema_build_bg.wasm");
  const module = new WebAssembly.Module(fs.readFileSync(file));
  // biome-ignore lint/suspicious/noExplicitAny: wasm-bindgen exports have no declared types
  let wasm: Record<string, any>; // the instance exports: wasm-bindgen functions, memory, tables
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const readString = (ptr: number, len: number) =>
    decoder.decode(new Uint8Array(wasm.memory.buffer).subarray(ptr >>> 0, (ptr >>> 0) + len));
  // The module's imports, by name without wasm-bindgen's per-build hash suffix.
  const implementations: Record<string, (...args: number[]) => unknown> = {
    __wbg_set_message: () => {}, // records a Rust panic message; the error still reaches us
    __wbg_Error: (ptr, len) => new Error(readString(ptr, len)),
    __wbg___wbindgen_throw: (ptr, len) => {
      throw new Error(readString(ptr, len));
    },
    __wbindgen_init_externref_table: () => {
      const table = wasm.__wbindgen_externrefs as WebAssembly.Table;
      const offset = table.grow(4);
      table.set(0, undefined);
      [undefined, null, true, false].forEach((value, i) => table.set(offset + i, value));
    },
  };
  const imports: Record<string, Record<string, (...args: number[]) => unknown>> = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) {
    const key = Object.keys(implementations).find((k) => name === k || name.startsWith(`${k}_`));
    if (!key)
      throw new Error(
        `${file} needs import ${name}: update loadSchemaWasm in ${import.meta.url} for this Prisma version`,
      );
    (imports[from] ??= {})[name] = implementations[key];
  }
  wasm = new WebAssembly.Instance(module, imports).exports;
  wasm.__wbindgen_start();
  return {
    getDmmf(schema) {
      const input = new TextEncoder().encode(JSON.stringify({ prismaSchema: schema, noColor: true }));
      const ptr = wasm.__wbindgen_malloc(input.length, 1) >>> 0;
      new Uint8Array(wasm.memory.buffer).set(input, ptr);
      const [outPtr, outLen, errorRef, failed] = wasm.get_dmmf(ptr, input.length) as number[];
      if (failed) {
        const error = (wasm.__wbindgen_externrefs as WebAssembly.Table).get(errorRef);
        wasm.__externref_table_dealloc(errorRef);
        let message = String(error?.message ?? error);
        try {
          message = JSON.parse(message).message ?? message;
        } catch {}
        throw new Error(`prisma schema is invalid:\n${message}`);
      }
      try {
        return JSON.parse(readString(outPtr, outLen));
      } finally {
        wasm.__wbindgen_free(outPtr, outLen, 1);
      }
    },
  };
}

export function getDatamodel(schemaText: string): Datamodel {
  schemaWasm ??= loadSchemaWasm();
  return schemaWasm.getDmmf(schemaText).datamodel;
}

/**
 * `@relation(..., map: "name")`, keyed "Model.field". The DMMF has no place for it, so this reads
 * it from the schema text: within each `model X { ... }` block, a field line holding `@relation(`
 * with a `map: "..."` argument. Only used to name foreign keys.
 */
export function relationMapNames(schemaText: string): Map<string, string> {
  const names = new Map<string, string>();
  let model: string | null = null;
  for (const raw of schemaText.split("\n")) {
    const line = raw.replace(/\/\/.*$/, "").trim();
    const start = /^model\s+(\w+)\s*\{/.exec(line);
    if (start) model = start[1];
    else if (line.startsWith("}")) model = null;
    else if (model && line.includes("@relation(")) {
      const map = /map\s*:\s*"([^"]*)"/.exec(line.slice(line.indexOf("@relation(")));
      if (map) names.set(`${model}.${line.split(/\s+/)[0]}`, map[1]);
    }
  }
  return names;
}
