import pg from "pg";

// SQL straight to the pool that Prisma's adapter also uses, for the few statements every agent turn
// and every streamed session makes (its log, its status, the access check, its turn job). Through
// Prisma, a raw statement still goes through the query interpreter and the adapter's per-column type
// mapping: measured on this repository's queries, 250-430 µs of CPU each against 120-245 µs here.
// Only repositories use it, as they alone use Prisma.
//
// Values and rows keep Prisma's conventions, so a repository can move a statement between the two
// without its callers noticing: a Date parameter goes as ISO text (a `timestamp(3)` column keeps its
// UTC wall time) and a `timestamp` column comes back as the Date of that UTC time, where pg would use
// the machine's time zone both ways; jsonb arrives parsed, integers and doubles as numbers.

export type Sql = {
  /** The rows of a query written as a template: each `${value}` is a parameter, never SQL text. */
  <T>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T[]>;
  /** A statement's count of rows changed. */
  run(strings: TemplateStringsArray, ...values: unknown[]): Promise<number>;
};

const TIMESTAMP = 1114;
const TIMESTAMP_ARRAY = 1115;

const TEXT_ARRAY = 1009;
/** pg's own parser for a type id (its typings take only the built-in ids as an enum). */
const typeParser = pg.types.getTypeParser as (oid: number, format?: "text" | "binary") => (text: string) => unknown;

const utc = (text: string) => new Date(`${text.replace(" ", "T")}Z`);
const textArray = typeParser(TEXT_ARRAY) as (text: string) => Array<string | null>;

/** Prisma's view of `timestamp` columns (UTC), for this pool's own queries; Prisma's adapter sets its own parsers per query. */
export const poolTypes = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMP) return utc;
    if (oid === TIMESTAMP_ARRAY)
      return (text: string) => textArray(text).map((value) => (value === null ? null : utc(value)));
    return typeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function parameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(parameter);
  return value;
}

function statement(strings: TemplateStringsArray, values: unknown[]): pg.QueryConfig {
  let text = strings[0]!;
  for (let i = 1; i < strings.length; i++) text += `$${i}${strings[i]}`;
  return { text, values: values.map(parameter) };
}

export function createSql(pool: pg.Pool): Sql {
  const sql = async <T>(strings: TemplateStringsArray, ...values: unknown[]) =>
    (await pool.query(statement(strings, values))).rows as T[];
  sql.run = async (strings: TemplateStringsArray, ...values: unknown[]) =>
    (await pool.query(statement(strings, values))).rowCount ?? 0;
  return sql;
}

/** Postgres refused a row for a unique constraint (unique_violation). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "23505";
}
