import superjson from "superjson";

// superjson on the wire (dates, maps and the like survive), with a shortcut for the message a
// streaming session sends most: a provisional text delta, a flat object of strings and numbers,
// sent once per token to every viewer. A subscription that tracks its position (session.events)
// sends it wrapped as `{ id, data }`, so one level of nested plain objects is allowed. For such a
// value superjson's output is `{ json: value }` with no type notes, so it is written directly,
// without superjson walking the value and building the paths it would find nothing at (that walk
// was about a twentieth of the server's time while 50 sessions streamed). Clients keep decoding
// with plain superjson.

export const wireTransformer = {
  serialize(value: unknown): unknown {
    return isPlainJson(value, 1) ? { json: value } : superjson.serialize(value);
  },
  deserialize(value: unknown): unknown {
    return superjson.deserialize(value as Parameters<typeof superjson.deserialize>[0]);
  },
};

/**
 * A plain object whose fields are strings, booleans, nulls, finite numbers other than -0 (which
 * superjson notes), or, `depth` levels down, plain objects of the same kind.
 */
function isPlainJson(value: unknown, depth: number): boolean {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (field === null || typeof field === "string" || typeof field === "boolean") continue;
    if (typeof field === "number" && Number.isFinite(field) && !Object.is(field, -0)) continue;
    if (depth > 0 && isPlainJson(field, depth - 1)) continue;
    return false;
  }
  return true;
}
