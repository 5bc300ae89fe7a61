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
    { id: "12", data: { kind: "delta", seq: 13, offset: 0, text: "tracked", turnId: "t", stepId: "s" } },
    { id: "12", data: { kind: "event", event: { seq: 12, createdAt: new Date(0) } } },
    { id: "12", data: { at: new Date(0) } },
    { a: { b: { c: "three levels" } } },
    { a: { n: -0 } },
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
