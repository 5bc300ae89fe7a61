import superjson from "superjson";

// superjson on the wire (dates, maps and the like survive), with a shortcut for what a streaming
// session sends most. A provisional text delta (a flat object of strings and numbers, once per
// token to every viewer) and a committed event (JSON whose one non-JSON value is its `createdAt`,
// about twenty a second per streaming session): superjson would walk each value, note its paths
// and copy it, which was about a twentieth of the server's time while 50 sessions streamed. For
// values made of JSON and Dates only, its output is `{ json: value }` plus, per Date, a note
// `path: ["Date"]` (and `v: 1`); that is written here directly, the value itself left as it is,
// since JSON.stringify writes a Date as superjson's `json` holds it (toISOString). Anything else (a
// Map, undefined, -0, NaN, a key superjson would escape, one object reached twice) goes to
// superjson. Clients keep decoding with plain superjson.

export const wireTransformer = {
  serialize(value: unknown): unknown {
    const dates = datesIfPlain(value);
    if (!dates) return superjson.serialize(value);
    if (dates.length === 0) return { json: value };
    return { json: value, meta: { values: Object.fromEntries(dates.map((path) => [path, ["Date"]])), v: 1 } };
  },
  deserialize(value: unknown): unknown {
    return superjson.deserialize(value as Parameters<typeof superjson.deserialize>[0]);
  },
};

/** Deeper values go to superjson: a bound on the walk, far beyond what the API sends. */
const MAX_DEPTH = 32;

/**
 * For a plain object (the top level superjson shortcuts) made of strings, booleans, nulls, finite
 * numbers other than -0, valid Dates, arrays and plain objects, each reached once: the paths of
 * its Dates as superjson writes them (keys joined with dots). Otherwise null.
 */
function datesIfPlain(value: unknown): string[] | null {
  if (!isPlainObject(value)) return null;
  const walk: Walk = { dates: [], seen: [], path: [] };
  return walkNode(walk, value, 0) ? walk.dates : null;
}

// Once per token per viewer: no closures, an array for the objects seen (a value holds a handful).
type Walk = { dates: string[]; seen: object[]; path: string[] };

function walkNode(walk: Walk, node: object, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  walk.seen.push(node);
  if (Array.isArray(node)) {
    if (Object.keys(node).length !== node.length) return false; // holes (superjson notes them) or extra fields
    for (let i = 0; i < node.length; i++) if (!walkField(walk, node[i], String(i), depth)) return false;
    return true;
  }
  if (!isPlainObject(node)) return false;
  for (const key in node) {
    if (key.includes(".") || key.includes("\\") || !walkField(walk, (node as Record<string, unknown>)[key], key, depth))
      return false;
  }
  return true;
}

function walkField(walk: Walk, item: unknown, key: string, depth: number): boolean {
  if (item === null || typeof item === "string" || typeof item === "boolean") return true;
  if (typeof item === "number") return Number.isFinite(item) && !Object.is(item, -0);
  if (typeof item !== "object" || walk.seen.includes(item)) return false;
  walk.path.push(key);
  if (item instanceof Date) {
    if (Number.isNaN(item.getTime())) return false;
    walk.seen.push(item);
    walk.dates.push(walk.path.join("."));
  } else if (!walkNode(walk, item, depth + 1)) return false;
  walk.path.pop();
  return true;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
