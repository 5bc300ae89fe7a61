// What server/db/schema-drift.test.ts compares: the database shape that prisma/schema.prisma
// describes (expected-shape.ts, from the DMMF that prisma-dmmf.ts loads) and the shape a live
// PostgreSQL database has (database-shape.ts), both reduced to this DbShape, named as in the
// database (@@map/@map applied), with types spelled as PostgreSQL's format_type() spells them and
// defaults normalised by normalizeDefault, so that comparing (diff-shapes.ts) is plain equality.

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
export const ANY_DEFAULT = "dbgenerated()";
/** PostgreSQL's NAMEDATALEN - 1; Prisma shortens its default constraint names to fit. */
export const MAX_IDENTIFIER = 63;

/** A SQL string literal. */
export const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

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
  if (array)
    return `ARRAY[${splitTopLevel(array[1])
      .map((x) => normalizeDefault(x, element))
      .join(", ")}]`;
  const literal = /^'((?:[^']|'')*)'$/s.exec(expr);
  if (literal) return canonicalLiteral(literal[1].replaceAll("''", "'"), element);
  if (/^[-+]?[\d.]/.test(expr) || /^(true|false)$/i.test(expr)) return canonicalLiteral(expr, element);
  return expr.replace(/\s+/g, " ");
}
