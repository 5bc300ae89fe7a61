import { describe, expect, it } from "vitest";
import { reconcile } from "@/components/terminal/remembered-terminals";

const before = { id: "a", title: "Terminal 1", createdAt: "2026-11-28T10:00:00.000Z" };
const after = { id: "b", title: "Terminal 2", createdAt: "2026-11-28T12:00:00.000Z" };
const restart = "2026-11-28T11:00:00.000Z";

describe("reconcile", () => {
  it("calls a terminal made before the server started and no longer listed ended", () => {
    expect(reconcile([before, after], [after], restart)).toEqual({ remember: [after, before], ended: [before] });
  });

  it("forgets a terminal made since the start that is no longer listed: it was closed", () => {
    expect(reconcile([after], [], restart)).toEqual({ remember: [], ended: [] });
  });

  it("keeps listed terminals as they are, without the fields it does not need", () => {
    expect(reconcile([], [{ ...before, pid: 7 } as typeof before], restart)).toEqual({ remember: [before], ended: [] });
  });
});
