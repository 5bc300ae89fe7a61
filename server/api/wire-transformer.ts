import superjson from "superjson";

// superjson on the wire (dates, maps and the like survive), with a shortcut for the message a
// streaming session sends most: a provisional text delta, a flat object of strings and numbers,
// sent once per token to every viewer. For such a value superjson's output is `{ json: value }`
// with no type notes, so it is written directly, without superjson walking the value and building
// the paths it would find nothing at. Clients keep decoding with plain superjson.

export const wireTransformer = {
  serialize(value: unknown): unknown {
    return isFlatJson(value) ? { json: value } : superjson.serialize(value);
  },
  deserialize(value: unknown): unknown {
    return superjson.deserialize(value as Parameters<typeof superjson.deserialize>[0]);
  },
};

/** A plain object whose fields are all strings, booleans, nulls or finite numbers other than -0 (which superjson notes). */
function isFlatJson(value: unknown): value is Record<string, string | number | boolean | null> {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (field === null || typeof field === "string" || typeof field === "boolean") continue;
    if (typeof field !== "number" || !Number.isFinite(field) || Object.is(field, -0)) return false;
  }
  return true;
}
