import superjson from "superjson";
import { describe, expect, it } from "vitest";
import { wireTransformer } from "@/server/api/wire-transformer";

// Browsers decode with plain superjson: whatever the shortcut writes must be what superjson writes.
describe("wireTransformer", () => {
  const values: unknown[] = [
    { kind: "delta", seq: 12, offset: 40, text: "hello ⟦wörld⟧", turnId: "t", stepId: "s" },
    { flag: true, nothing: null, n: 1.5 },
    {},
    { at: new Date(0), n: 1 },
    { n: -0 },
    { n: Number.NaN },
    { n: Infinity },
    { missing: undefined },
    { nested: { text: "x" } },
    { big: 10n },
    [1, 2, 3],
    new Map([["a", 1]]),
    "text",
    42,
    null,
    Object.assign(Object.create(null), { text: "no prototype" }),
  ];

  it.each(values.map((value) => [value]))("writes %o as superjson does, and reads it back", (value) => {
    const wire = JSON.parse(JSON.stringify(wireTransformer.serialize(value)));
    expect(wire).toEqual(JSON.parse(JSON.stringify(superjson.serialize(value))));
    expect(superjson.deserialize(wire)).toEqual(value);
  });
});
