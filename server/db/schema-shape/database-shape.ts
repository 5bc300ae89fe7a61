import pg from "pg";
import { normalizeDefault, type DbShape } from "./shape";

// The actual shape, from the database's catalogs (schema "public")

const ACTIONS: Record<string, string> = {
  a: "NO ACTION",
  r: "RESTRICT",
  c: "CASCADE",
  n: "SET NULL",
  d: "SET DEFAULT",
};
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

    for (const row of await q<{
      table: string;
      name: string;
      type: string;
      nullable: boolean;
      default: string | null;
      identity: string;
      generated: string;
    }>(`
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

    for (const row of await q<{
      table: string;
      name: string;
      ref_table: string;
      columns: string[];
      ref_columns: string[];
      on_delete: string;
      on_update: string;
    }>(`
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
