import { describe, expect, it } from "vitest";
import { DeferredCode } from "@/components/ui/deferred";

const Panel = () => null;

describe("DeferredCode", () => {
  it("loads its code once, however often it is asked, and then has the component at hand", async () => {
    let loads = 0;
    const code = new DeferredCode(async () => {
      loads++;
      return Panel;
    });
    expect(code.loaded).toBeUndefined();
    await Promise.all([code.preload(), code.preload(), code.preload()]);
    await code.preload();
    expect(loads).toBe(1);
    expect(code.loaded).toBe(Panel);
  });

  it("asks again after a failed load (a network error is not remembered)", async () => {
    let fail = true;
    const code = new DeferredCode(async () => {
      if (fail) throw new Error("chunk failed to load");
      return Panel;
    });
    await expect(code.preload()).rejects.toThrow("chunk failed to load");
    expect(code.loaded).toBeUndefined();
    fail = false;
    await code.preload();
    expect(code.loaded).toBe(Panel);
  });
});
