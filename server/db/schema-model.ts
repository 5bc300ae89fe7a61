import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import pg from "pg";

// The database shape that prisma/schema.prisma describes, the shape a live PostgreSQL database
// has, and the differences between the two, for server/db/schema-drift.test.ts.
//
// The schema side is not parsed by hand: the Prisma CLI ships its schema engine as WebAssembly
// (node_modules/prisma/build/prisma_schema_build_bg.wasm, the code behind `prisma validate` and
// `prisma generate`), whose `get_dmmf` returns the fully resolved data model. The CLI bundles the
// JS glue for that module inside cli.js, so this file carries the ~30 lines of wasm-bindgen glue
// itself (loadSchemaWasm). The one thing the DMMF leaves out is a foreign key's custom name
// (`@relation(..., map: "...")`), read from the schema text by relationMapNames.
//
// Both sides are reduced to the same DbShape, named as in the database (@@map/@map applied),
// with types spelled as PostgreSQL's format_type() spells them and defaults normalised by
// normalizeDefault, so that comparing is plain equality.

export type DbShape = { tables: Map<string, Table>; enums: Map<string, string[]> };
export type Table = {
  name: string;
  columns: Map<string, Column>;
  primaryKey: { name: string; columns: string[] } | null;
  indexes: Map<string, Index>;
  foreignKeys: Map<string, ForeignKey>;
};
export type Column = { type: string; nullable: boolean; default: string | null };
export type IndexColumn = { name: string; desc: boolean; opclass: string | null };
export type Index = {
  name: string;
  unique: boolean;
  method: string;
  columns: IndexColumn[];
  /** Database side only: a WHERE clause, which the schema cannot express. */
  predicate?: string | null;
};
export type ForeignKey = {
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: string;
  onUpdate: string;
};

/** Matches any database default: `@default(dbgenerated())` says "a default the schema does not describe". */
const ANY_DEFAULT = "dbgenerated()";
/** PostgreSQL's NAMEDATALEN - 1; Prisma shortens its default constraint names to fit. */
const MAX_IDENTIFIER = 63;

// ---------------------------------------------------------------------------------------------
// Loading the DMMF through Prisma's schema wasm

type DmmfField = {
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
type DmmfModel = { name: string; dbName: string | null; schema: string | null; fields: DmmfField[] };
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
    if (!key) throw new Error(`${file} needs import ${name}: update loadSchemaWasm in ${import.meta.url} for this Prisma version`);
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
function relationMapNames(schemaText: string): Map<string, string> {
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

// ---------------------------------------------------------------------------------------------
// The expected shape, from schema.prisma

const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Int: "integer",
  BigInt: "bigint",
  Boolean: "boolean",
  DateTime: "timestamp(3) without time zone",
  Json: "jsonb",
  Float: "double precision",
  Decimal: "numeric(65,30)",
  Bytes: "bytea",
};

const precision = (args: string[]) => (args.length ? `(${args.join(",")})` : "");
// @db.* attributes of the postgresql connector, spelled as format_type() prints them.
const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Text: () => "text",
  Char: (a) => `character(${a[0] ?? 1})`,
  VarChar: (a) => `character varying${precision(a)}`,
  Bit: (a) => `bit(${a[0] ?? 1})`,
  VarBit: (a) => `bit varying${precision(a)}`,
  Uuid: () => "uuid",
  Xml: () => "xml",
  Inet: () => "inet",
  Citext: () => "citext",
  Boolean: () => "boolean",
  Integer: () => "integer",
  SmallInt: () => "smallint",
  BigInt: () => "bigint",
  Oid: () => "oid",
  Real: () => "real",
  DoublePrecision: () => "double precision",
  Decimal: (a) => `numeric${precision(a)}`,
  Money: () => "money",
  Timestamp: (a) => `timestamp${precision(a)} without time zone`,
  Timestamptz: (a) => `timestamp${precision(a)} with time zone`,
  Time: (a) => `time${precision(a)} without time zone`,
  Timetz: (a) => `time${precision(a)} with time zone`,
  Date: () => "date",
  Json: () => "json",
  JsonB: () => "jsonb",
  ByteA: () => "bytea",
};

/** Prisma's default constraint name: `<table>_<columns>_<suffix>`, the front cut to fit 63 bytes. */
export function prismaConstraintName(table: string, columns: string[], suffix: string) {
  const base = [table, ...columns].join("_");
  return base.slice(0, MAX_IDENTIFIER - suffix.length - 1) + "_" + suffix;
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** A DMMF default as the SQL Prisma Migrate would write for it; null when the database has none. */
function defaultSql(field: DmmfField, enumValue: (value: string) => string): string | null {
  if (!field.hasDefaultValue || field.default === undefined) return null;
  const value = field.default;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const { name, args } = value as { name: string; args: unknown[] };
    if (name === "autoincrement" || name === "sequence") return "autoincrement()";
    if (name === "now") return "CURRENT_TIMESTAMP";
    if (name === "dbgenerated") return args.length ? String(args[0]) : ANY_DEFAULT;
    return null; // uuid(), cuid(), nanoid(), ulid(): generated by Prisma Client, not the database
  }
  const literal = (v: unknown): string => {
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    if (field.kind === "enum") return quote(enumValue(String(v)));
    return quote(typeof v === "string" ? v : JSON.stringify(v));
  };
  return Array.isArray(value) ? `ARRAY[${value.map(literal).join(", ")}]` : literal(value);
}

export function expectedShape(schemaText: string): DbShape {
  const datamodel = getDatamodel(schemaText);
  const relationMaps = relationMapNames(schemaText);
  const models = new Map(datamodel.models.map((m) => [m.name, m]));
  const enumsByName = new Map(datamodel.enums.map((e) => [e.name, e]));
  const tableName = (m: DmmfModel) => m.dbName ?? m.name;
  const columnName = (m: DmmfModel, field: string) => {
    const f = m.fields.find((x) => x.name === field);
    if (!f) throw new Error(`model ${m.name} has no field ${field}`);
    return f.dbName ?? f.name;
  };
  const columnType = (f: DmmfField): string => {
    let base: string;
    if (f.nativeType) {
      const [name, args] = f.nativeType;
      const render = NATIVE_TYPES[name];
      if (!render) throw new Error(`schema-model.ts does not know native type @db.${name}: add it to NATIVE_TYPES`);
      base = render(args);
    } else if (f.kind === "enum") {
      const e = enumsByName.get(f.type)!;
      base = e.dbName ?? e.name;
    } else {
      base = SCALAR_TYPES[f.type];
      if (!base) throw new Error(`schema-model.ts does not know field type ${f.type}`);
    }
    return f.isList ? `${base}[]` : base;
  };

  const shape: DbShape = { tables: new Map(), enums: new Map() };
  for (const e of datamodel.enums) shape.enums.set(e.dbName ?? e.name, e.values.map((v) => v.dbName ?? v.name));

  for (const model of datamodel.models) {
    if (model.schema) throw new Error(`model ${model.name}: multiSchema (@@schema) is not supported by schema-model.ts`);
    const table: Table = {
      name: tableName(model),
      columns: new Map(),
      primaryKey: null,
      indexes: new Map(),
      foreignKeys: new Map(),
    };
    shape.tables.set(table.name, table);
    for (const f of model.fields) {
      if (f.kind !== "scalar" && f.kind !== "enum") continue;
      const e = f.kind === "enum" ? enumsByName.get(f.type) : undefined;
      const enumValue = (v: string) => e?.values.find((x) => x.name === v)?.dbName ?? v;
      const sql = defaultSql(f, enumValue);
      table.columns.set(f.dbName ?? f.name, {
        type: columnType(f),
        // Prisma Migrate creates scalar-list columns without NOT NULL (`"tags" TEXT[]`).
        nullable: !f.isRequired || f.isList,
        default: sql === null ? null : normalizeDefault(sql, columnType(f)),
      });
    }
    for (const f of model.fields) {
      if (f.kind !== "object" || !f.relationFromFields?.length) continue;
      const target = models.get(f.type)!;
      const columns = f.relationFromFields.map((x) => columnName(model, x));
      const optional = f.relationFromFields.some((x) => !model.fields.find((y) => y.name === x)!.isRequired);
      const name = relationMaps.get(`${model.name}.${f.name}`) ?? prismaConstraintName(table.name, columns, "fkey");
      table.foreignKeys.set(name, {
        name,
        columns,
        refTable: tableName(target),
        refColumns: f.relationToFields!.map((x) => columnName(target, x)),
        // Prisma's defaults when the relation names no action.
        onDelete: referentialAction(f.relationOnDelete ?? (optional ? "SetNull" : "Restrict")),
        onUpdate: referentialAction(f.relationOnUpdate ?? "Cascade"),
      });
    }
  }

  for (const index of datamodel.indexes) {
    const model = models.get(index.model)!;
    const table = shape.tables.get(tableName(model))!;
    const columns = index.fields.map((f) => columnName(model, f.name));
    if (index.type === "id") {
      table.primaryKey = { name: index.dbName ?? prismaConstraintName(table.name, [], "pkey"), columns };
      continue;
    }
    if (index.type === "fulltext") throw new Error(`model ${model.name}: fulltext indexes are not supported by schema-model.ts`);
    const unique = index.type === "unique";
    const name = index.dbName ?? prismaConstraintName(table.name, columns, unique ? "key" : "idx");
    table.indexes.set(name, {
      name,
      unique,
      method: (index.algorithm ?? "btree").toLowerCase(),
      columns: index.fields.map((f, i) => ({
        name: columns[i],
        desc: f.sortOrder === "desc",
        opclass: f.operatorClass?.toLowerCase() ?? null,
      })),
    });
  }

  addImplicitManyToManyTables(datamodel, shape, tableName, columnType);
  return shape;
}

/**
 * An implicit many-to-many relation (list fields on both sides, no @relation fields) is a join
 * table `_<RelationName>` with columns A and B (ids of the two models, A the one whose name sorts
 * first), primary key (A, B), an index on B, and cascading foreign keys, as Prisma Migrate makes it.
 */
function addImplicitManyToManyTables(
  datamodel: Datamodel,
  shape: DbShape,
  tableName: (m: DmmfModel) => string,
  columnType: (f: DmmfField) => string,
) {
  const seen = new Set<string>();
  for (const model of datamodel.models) {
    for (const f of model.fields) {
      if (f.kind !== "object" || !f.isList || !f.relationName || seen.has(f.relationName)) continue;
      const other = datamodel.models.find((m) => m.name === f.type)!;
      const back = other.fields.find((x) => x.relationName === f.relationName && x !== f);
      if (!back?.isList) continue;
      seen.add(f.relationName);
      const name = `_${f.relationName}`;
      const [a, b] = [model, other].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      const idOf = (m: DmmfModel) => {
        const id = datamodel.indexes.find((i) => i.model === m.name && i.type === "id");
        if (id?.fields.length !== 1) throw new Error(`implicit many-to-many ${name} needs a single-field @id on ${m.name}`);
        return m.fields.find((x) => x.name === id.fields[0].name)!;
      };
      const table: Table = { name, columns: new Map(), primaryKey: null, indexes: new Map(), foreignKeys: new Map() };
      for (const [column, m] of [["A", a], ["B", b]] as const) {
        const id = idOf(m);
        table.columns.set(column, { type: columnType(id), nullable: false, default: null });
        const fk = `${name}_${column}_fkey`;
        table.foreignKeys.set(fk, {
          name: fk,
          columns: [column],
          refTable: tableName(m),
          refColumns: [id.dbName ?? id.name],
          onDelete: "CASCADE",
          onUpdate: "CASCADE",
        });
      }
      table.primaryKey = { name: `${name}_AB_pkey`, columns: ["A", "B"] };
      table.indexes.set(`${name}_B_index`, {
        name: `${name}_B_index`,
        unique: false,
        method: "btree",
        columns: [{ name: "B", desc: false, opclass: null }],
      });
      shape.tables.set(name, table);
    }
  }
}

function referentialAction(prismaAction: string) {
  const sql: Record<string, string> = {
    Cascade: "CASCADE",
    Restrict: "RESTRICT",
    NoAction: "NO ACTION",
    SetNull: "SET NULL",
    SetDefault: "SET DEFAULT",
  };
  return sql[prismaAction] ?? prismaAction;
}

// ---------------------------------------------------------------------------------------------
// Defaults: one spelling for what Prisma would write and what pg_get_expr() prints back

/** Removes `::type` casts outside string literals (pg_get_expr adds them: `'user'::text`). */
function stripCasts(sql: string) {
  const typeName =
    /^::\s*(?:"[^"]*"|[A-Za-z_][\w$]*(?:\s+(?:varying|precision))?)(?:\.(?:"[^"]*"|[A-Za-z_][\w$]*))?(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?(?:\s+with(?:out)?\s+time\s+zone)?(?:\s*\[\])*/;
  let out = "";
  for (let i = 0; i < sql.length; ) {
    if (sql[i] === "'") {
      const end = /^'(?:[^']|'')*'/.exec(sql.slice(i));
      const literal = end ? end[0] : sql.slice(i);
      out += literal;
      i += literal.length;
    } else if (sql.startsWith("::", i)) {
      const cast = typeName.exec(sql.slice(i));
      i += cast ? cast[0].length : 2;
    } else out += sql[i++];
  }
  return out;
}

function splitTopLevel(list: string) {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === "'") {
      const literal = /^'(?:[^']|'')*'/.exec(list.slice(i))?.[0] ?? list.slice(i);
      current += literal;
      i += literal.length - 1;
      continue;
    }
    if (c === "(" || c === "[") depth++;
    if (c === ")" || c === "]") depth--;
    if (c === "," && depth === 0) {
      parts.push(current.trim());
      current = "";
    } else current += c;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

const NUMERIC = /^(smallint|integer|bigint|real|double precision|numeric|money|oid)/;

/** A literal's canonical spelling for a column of the given type (without `[]`). */
function canonicalLiteral(value: string, type: string): string {
  if (NUMERIC.test(type) && /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(value.trim())) {
    let n = value.trim().replace(/^\+/, "");
    if (!/e/i.test(n) && n.includes(".")) n = n.replace(/0+$/, "").replace(/\.$/, "");
    return n === "-0" ? "0" : n;
  }
  if (type === "boolean" && /^(t|true|f|false)$/i.test(value)) return /^t/i.test(value) ? "true" : "false";
  if (type === "json" || type === "jsonb") {
    try {
      return quote(JSON.stringify(JSON.parse(value)));
    } catch {}
  }
  if (type.startsWith("timestamp") || type === "date") {
    const date = new Date(/[zZ]|[+-]\d\d(:?\d\d)?$/.test(value) || type === "date" ? value : `${value}Z`);
    if (!Number.isNaN(date.getTime())) return quote(date.toISOString());
  }
  return quote(value);
}

/** Normalises a default expression (Prisma's SQL or pg_get_expr's) for the given column type. */
export function normalizeDefault(sql: string, type: string): string {
  const trimmed = sql.trim();
  if (trimmed === ANY_DEFAULT || trimmed === "autoincrement()") return trimmed;
  if (/^nextval\(/i.test(trimmed)) return "autoincrement()";
  const expr = stripCasts(trimmed).trim();
  if (/^(current_timestamp|now\(\))$/i.test(expr)) return "CURRENT_TIMESTAMP";
  const element = type.replace(/(\[\])+$/, "");
  const array = /^ARRAY\s*\[(.*)\]$/is.exec(expr);
  if (array) return `ARRAY[${splitTopLevel(array[1]).map((x) => normalizeDefault(x, element)).join(", ")}]`;
  const literal = /^'((?:[^']|'')*)'$/s.exec(expr);
  if (literal) return canonicalLiteral(literal[1].replaceAll("''", "'"), element);
  if (/^[-+]?[\d.]/.test(expr) || /^(true|false)$/i.test(expr)) return canonicalLiteral(expr, element);
  return expr.replace(/\s+/g, " ");
}

// ---------------------------------------------------------------------------------------------
// The actual shape, from the database's catalogs (schema "public")

const ACTIONS: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" };
const IGNORED_TABLES = new Set(["_prisma_migrations"]);

export async function databaseShape(databaseUrl: string): Promise<DbShape> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const q = async <T extends pg.QueryResultRow>(sql: string) => (await client.query<T>(sql)).rows;
    const shape: DbShape = { tables: new Map(), enums: new Map() };

    for (const row of await q<{ name: string; values: string[] }>(`
      SELECT t.typname AS name, array_agg(e.enumlabel ORDER BY e.enumsortorder)::text[] AS values
      FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace JOIN pg_enum e ON e.enumtypid = t.oid
      WHERE n.nspname = 'public' GROUP BY t.typname`)) {
      shape.enums.set(row.name, row.values);
    }

    const table = (name: string) => shape.tables.get(name)!;
    for (const row of await q<{ name: string }>(`
      SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`)) {
      if (IGNORED_TABLES.has(row.name)) continue;
      shape.tables.set(row.name, {
        name: row.name,
        columns: new Map(),
        primaryKey: null,
        indexes: new Map(),
        foreignKeys: new Map(),
      });
    }

    for (const row of await q<{ table: string; name: string; type: string; nullable: boolean; default: string | null; identity: string; generated: string }>(`
      SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
             NOT a.attnotnull AS nullable, pg_get_expr(d.adbin, d.adrelid) AS default,
             a.attidentity AS identity, a.attgenerated AS generated
      FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`)) {
      if (!shape.tables.has(row.table)) continue;
      const type = row.type.replaceAll('"', "");
      let fallback: string | null = row.default === null ? null : normalizeDefault(row.default, type);
      if (row.identity) fallback = "autoincrement()";
      if (row.generated) fallback = `GENERATED ALWAYS AS (${row.default})`;
      table(row.table).columns.set(row.name, { type, nullable: row.nullable, default: fallback });
    }

    type IndexRow = {
      table: string;
      name: string;
      unique: boolean;
      primary: boolean;
      method: string;
      predicate: string | null;
      columns: string[];
      desc: boolean[];
      opclasses: string[];
      opclass_defaults: boolean[];
    };
    for (const row of await q<IndexRow>(`
      SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary,
             am.amname AS method, pg_get_expr(x.indpred, x.indrelid) AS predicate,
             array_agg(coalesce(a.attname::text, pg_get_indexdef(x.indexrelid, k.ord::int, true)) ORDER BY k.ord) AS columns,
             array_agg((k.option & 1) = 1 ORDER BY k.ord) AS desc,
             array_agg(oc.opcname::text ORDER BY k.ord) AS opclasses,
             array_agg(oc.opcdefault ORDER BY k.ord) AS opclass_defaults
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_am am ON am.oid = i.relam
      CROSS JOIN LATERAL unnest(x.indkey::int2[], x.indoption::int2[], x.indclass::oid[])
        WITH ORDINALITY AS k(attnum, option, opclass, ord)
      LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum AND k.attnum > 0
      LEFT JOIN pg_opclass oc ON oc.oid = k.opclass
      WHERE n.nspname = 'public' AND k.ord <= x.indnkeyatts
      GROUP BY t.relname, i.relname, x.indisunique, x.indisprimary, am.amname, x.indpred, x.indrelid`)) {
      if (!shape.tables.has(row.table)) continue;
      if (row.primary) {
        table(row.table).primaryKey = { name: row.name, columns: row.columns };
        continue;
      }
      table(row.table).indexes.set(row.name, {
        name: row.name,
        unique: row.unique,
        method: row.method,
        predicate: row.predicate,
        columns: row.columns.map((name, i) => ({
          name,
          desc: row.desc[i],
          opclass: row.opclass_defaults[i] ? null : row.opclasses[i],
        })),
      });
    }

    for (const row of await q<{ table: string; name: string; ref_table: string; columns: string[]; ref_columns: string[]; on_delete: string; on_update: string }>(`
      SELECT t.relname AS table, c.conname AS name, r.relname AS ref_table,
             c.confdeltype AS on_delete, c.confupdtype AS on_update,
             ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(num, ord)
                   JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.num ORDER BY k.ord) AS columns,
             ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(num, ord)
                   JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.num ORDER BY k.ord) AS ref_columns
      FROM pg_constraint c
      JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      JOIN pg_class r ON r.oid = c.confrelid
      WHERE c.contype = 'f' AND n.nspname = 'public'`)) {
      if (!shape.tables.has(row.table)) continue;
      table(row.table).foreignKeys.set(row.name, {
        name: row.name,
        columns: row.columns,
        refTable: row.ref_table,
        refColumns: row.ref_columns,
        onDelete: ACTIONS[row.on_delete],
        onUpdate: ACTIONS[row.on_update],
      });
    }
    return shape;
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Differences, one readable line each ("schema says X, database has Y")

const list = (items: string[]) => `(${items.join(", ")})`;
const sorted = <T>(map: Map<string, T>) => [...map.keys()].sort();
const describeDefault = (d: string | null) => (d === null ? "no default" : `default ${d}`);
const indexColumns = (index: Index) =>
  list(index.columns.map((c) => `${c.name}${c.desc ? " DESC" : ""}${c.opclass ? ` ${c.opclass}` : ""}`));
const indexKind = (index: Index) => (index.unique ? "unique index" : "index");

export function diffShapes(expected: DbShape, actual: DbShape): string[] {
  const out: string[] = [];

  for (const name of sorted(expected.enums)) {
    const want = expected.enums.get(name)!;
    const have = actual.enums.get(name);
    if (!have) out.push(`enum ${name} missing in database`);
    else if ([...want].sort().join("\n") !== [...have].sort().join("\n")) {
      out.push(`enum ${name}: schema says values ${list(want)}, database has ${list(have)}`);
    }
  }
  for (const name of sorted(actual.enums)) {
    if (!expected.enums.has(name)) out.push(`enum ${name} exists in database but not in schema`);
  }

  for (const name of sorted(expected.tables)) {
    const want = expected.tables.get(name)!;
    const have = actual.tables.get(name);
    if (!have) out.push(`table ${name} missing in database`);
    else out.push(...diffTable(want, have));
  }
  for (const name of sorted(actual.tables)) {
    if (!expected.tables.has(name)) out.push(`table ${name} exists in database but not in schema`);
  }
  return out;
}

function diffTable(want: Table, have: Table): string[] {
  const out: string[] = [];
  const t = want.name;

  for (const [name, column] of want.columns) {
    const actual = have.columns.get(name);
    const label = `column ${t}.${name}`;
    if (!actual) {
      out.push(`${label} missing in database`);
      continue;
    }
    if (column.type !== actual.type) out.push(`${label}: schema says type ${column.type}, database has ${actual.type}`);
    if (column.nullable !== actual.nullable) {
      out.push(
        column.nullable
          ? `${label}: schema says nullable, database has NOT NULL`
          : `${label}: schema says NOT NULL, database allows NULL`,
      );
    }
    const defaultsMatch =
      column.default === actual.default || (column.default === ANY_DEFAULT && actual.default !== null);
    if (!defaultsMatch) {
      out.push(`${label}: schema says ${describeDefault(column.default)}, database has ${describeDefault(actual.default)}`);
    }
  }
  for (const name of have.columns.keys()) {
    if (!want.columns.has(name)) out.push(`column ${t}.${name} exists in database but not in schema`);
  }

  const pk = (p: Table["primaryKey"]) => (p ? `${p.name} ${list(p.columns)}` : "none");
  if (pk(want.primaryKey) !== pk(have.primaryKey)) {
    out.push(`primary key of ${t}: schema says ${pk(want.primaryKey)}, database has ${pk(have.primaryKey)}`);
  }

  for (const name of sorted(want.indexes)) {
    const index = want.indexes.get(name)!;
    const actual = have.indexes.get(name);
    const label = `${indexKind(index)} ${name}`;
    if (!actual) {
      out.push(`${label} missing in database`);
      continue;
    }
    if (index.unique !== actual.unique) {
      out.push(`index ${name}: schema says ${indexKind(index)}, database has ${indexKind(actual)}`);
    }
    if (indexColumns(index) !== indexColumns(actual)) {
      out.push(`${label}: schema says columns ${indexColumns(index)}, database has ${indexColumns(actual)}`);
    }
    if (index.method !== actual.method) out.push(`${label}: schema says method ${index.method}, database has ${actual.method}`);
    if (actual.predicate) out.push(`${label}: database has WHERE ${actual.predicate}, which the schema cannot express`);
  }
  for (const name of sorted(have.indexes)) {
    if (!want.indexes.has(name)) {
      const index = have.indexes.get(name)!;
      out.push(`${indexKind(index)} ${name} on ${t}${indexColumns(index)} exists in database but not in schema`);
    }
  }

  for (const name of sorted(want.foreignKeys)) {
    const fk = want.foreignKeys.get(name)!;
    const actual = have.foreignKeys.get(name);
    const label = `foreign key ${name}`;
    const target = (k: ForeignKey) => `${list(k.columns)} REFERENCES ${k.refTable}${list(k.refColumns)}`;
    if (!actual) {
      out.push(`${label} missing in database`);
      continue;
    }
    if (target(fk) !== target(actual)) out.push(`${label}: schema says ${target(fk)}, database has ${target(actual)}`);
    if (fk.onDelete !== actual.onDelete) out.push(`${label}: schema says ON DELETE ${fk.onDelete}, database has ON DELETE ${actual.onDelete}`);
    if (fk.onUpdate !== actual.onUpdate) out.push(`${label}: schema says ON UPDATE ${fk.onUpdate}, database has ON UPDATE ${actual.onUpdate}`);
  }
  for (const name of sorted(have.foreignKeys)) {
    if (!want.foreignKeys.has(name)) out.push(`foreign key ${name} on ${t} exists in database but not in schema`);
  }
  return out;
}
