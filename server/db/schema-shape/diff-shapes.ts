import { ANY_DEFAULT, type DbShape, type ForeignKey, type Index, type Table } from "./shape";

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
      out.push(
        `${label}: schema says ${describeDefault(column.default)}, database has ${describeDefault(actual.default)}`,
      );
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
    if (index.method !== actual.method)
      out.push(`${label}: schema says method ${index.method}, database has ${actual.method}`);
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
    if (fk.onDelete !== actual.onDelete)
      out.push(`${label}: schema says ON DELETE ${fk.onDelete}, database has ON DELETE ${actual.onDelete}`);
    if (fk.onUpdate !== actual.onUpdate)
      out.push(`${label}: schema says ON UPDATE ${fk.onUpdate}, database has ON UPDATE ${actual.onUpdate}`);
  }
  for (const name of sorted(have.foreignKeys)) {
    if (!want.foreignKeys.has(name)) out.push(`foreign key ${name} on ${t} exists in database but not in schema`);
  }
  return out;
}
