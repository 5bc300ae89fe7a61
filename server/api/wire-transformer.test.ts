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
    // Committed events as a viewer gets them: one, and a page of the log.
    {
      id: "7",
      data: {
        kind: "event",
        event: {
          sessionId: "s",
          seq: 7,
          type: "assistant_delta",
          payload: { turnId: "t", stepId: "s", text: "a.b" },
          authorId: null,
          createdAt: new Date(1_700_000_000_123),
        },
      },
    },
    {
      id: "9",
      data: {
        kind: "events",
        events: [
          { seq: 8, createdAt: new Date(1) },
          { seq: 9, createdAt: new Date(2), payload: { list: [1, "x", { at: new Date(3) }] } },
        ],
        more: false,
      },
    },
    { one: [new Date(5), { deeper: [[new Date(6)]] }] },
    { "dotted.key": new Date(0) },
    { "back\\slash": new Date(0) },
    { list: [1, undefined] },
    { re: /x/ },
    { set: new Set([1]) },
  ];

  // Values superjson itself does not read back as they were; the wire must still be superjson's.
  const lossy: unknown[] = [
    { at: new Date(Number.NaN) }, // biome-ignore lint/suspicious/noSparseArray: a hole is one of the lossy values under test
    { holes: [1, , 3] },
    { fn: () => 1 },
  ];
  it.each(lossy.map((value) => [value]))("writes %o as superjson does", (value) => {
    expect(JSON.parse(JSON.stringify(wireTransformer.serialize(value)))).toEqual(
      JSON.parse(JSON.stringify(superjson.serialize(value))),
    );
  });

  it("leaves an object reached twice, and a Date reached twice, to superjson's referential notes", () => {
    const shared = { text: "twice" };
    const at = new Date(0);
    for (const value of [
      { a: shared, b: shared },
      { a: at, b: at },
    ]) {
      const wire = JSON.parse(JSON.stringify(wireTransformer.serialize(value)));
      expect(wire).toEqual(JSON.parse(JSON.stringify(superjson.serialize(value))));
      expect(wire.meta.referentialEqualities).toBeDefined();
    }
  });

  it.each(values.map((value) => [value]))("writes %o as superjson does, and reads it back", (value) => {
    const wire = JSON.parse(JSON.stringify(wireTransformer.serialize(value)));
    expect(wire).toEqual(JSON.parse(JSON.stringify(superjson.serialize(value))));
    expect(superjson.deserialize(wire)).toEqual(value);
  });
});
