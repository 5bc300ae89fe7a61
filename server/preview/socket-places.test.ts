import { expect, it } from "vitest";
import { createSocketPlaces } from "./socket-places";

// The bounds the preview proxy holds WebSockets to (preview-admission.test.ts opens real ones).

it("refuses a place past any bound it counts toward, and frees it once, when released", () => {
  const places = createSocketPlaces({ session: 2, project: 3, person: 4, all: 9 });
  const a1 = places.take("a", "p", "ann")!;
  places.take("a", "p", "ann");
  expect(places.take("a", "p", "ann")).toBeNull(); // the session's
  // A project's public links together; its people are not held back by them.
  places.take("link-1", "p", undefined);
  places.take("link-1", "p", undefined);
  places.take("link-2", "p", undefined);
  expect(places.take("link-3", "p", undefined)).toBeNull();
  expect(places.take("b", "p", "bob")).not.toBeNull();
  // A person's over their projects: Ann's other projects bring no more.
  expect(places.take("a2", "q", "ann")).not.toBeNull();
  expect(places.take("a3", "r", "ann")).not.toBeNull();
  expect(places.take("a4", "s", "ann")).toBeNull();
  a1();
  a1(); // twice: one place
  expect(places.take("a4", "s", "ann")).not.toBeNull();
  expect(places.take("a5", "t", "ann")).toBeNull();
  // The instance's, whoever asks: eight are open.
  expect(places.take("c", "u", "carl")).not.toBeNull();
  expect(places.take("d", "w", "dan")).toBeNull();
  expect(places.take("link-4", "v", undefined)).toBeNull();
});
