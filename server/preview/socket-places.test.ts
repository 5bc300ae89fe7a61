import { expect, it } from "vitest";
import { createSocketPlaces } from "./socket-places";

// The bounds the preview proxy holds WebSockets to (preview-admission.test.ts opens real ones).

it("refuses a place past any bound it counts toward, and frees it once, when released", () => {
  const places = createSocketPlaces({ session: 2, project: 3, person: 4, all: 6 });
  const a1 = places.take("a", "p", "ann")!;
  places.take("a", "p", "ann");
  expect(places.take("a", "p", "ann")).toBeNull(); // the session's
  places.take("b", "p", "bob");
  expect(places.take("c", "p", undefined)).toBeNull(); // the project's, a public link's too
  // A person's over their projects: Ann's other projects bring no more.
  places.take("a2", "q", "ann");
  places.take("a3", "r", "ann");
  expect(places.take("a4", "s", "ann")).toBeNull();
  a1();
  a1(); // twice: one place
  expect(places.take("a4", "s", "ann")).not.toBeNull();
  expect(places.take("a5", "t", "ann")).toBeNull();
  // The instance's, whoever asks.
  places.take("l", "u", undefined);
  expect(places.take("m", "v", undefined)).toBeNull();
  expect(places.take("n", "w", "carl")).toBeNull();
});
