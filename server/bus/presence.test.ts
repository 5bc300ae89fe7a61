import { describe, expect, it } from "vitest";
import { createRateLimits } from "@/server/http/rate-limit";
import { createPresence } from "./presence";

describe("presence", () => {
  it("counts a person once across their tabs, and says who types until it lapses", async () => {
    const presence = createPresence({ typingMs: 50 });
    const seen: string[][] = [];
    presence.subscribe("s1", (entries) => seen.push(entries.map((e) => `${e.name}${e.typing ? "*" : ""}`)));
    const ann = { key: "user:ann", userId: "ann", name: "Ann", guest: false };
    const leaveTab1 = presence.join("s1", ann);
    const leaveTab2 = presence.join("s1", ann);
    const leaveGuest = presence.join("s1", { key: "link:x:1", userId: null, name: "Guest", guest: true });
    expect(presence.snapshot("s1").map((e) => e.name)).toEqual(["Ann", "Guest"]);
    presence.setTyping("s1", "user:ann", true);
    expect(seen.at(-1)).toEqual(["Ann*", "Guest"]);
    await new Promise((r) => setTimeout(r, 80));
    expect(seen.at(-1)).toEqual(["Ann", "Guest"]);
    leaveTab1();
    expect(presence.snapshot("s1").map((e) => e.name)).toEqual(["Ann", "Guest"]);
    leaveTab2();
    leaveGuest();
    expect(presence.snapshot("s1")).toEqual([]);
    expect(presence.snapshot("other")).toEqual([]);
  });
});

describe("rate limits", () => {
  it("refuse past the limit within a window, per address, and forget the next window", () => {
    let now = 0;
    const limits = createRateLimits(() => now);
    const results = Array.from({ length: 11 }, () => limits.take("invitation", "1.2.3.4"));
    expect(results.filter(Boolean)).toHaveLength(10);
    expect(results.at(-1)).toBe(false);
    expect(limits.take("invitation", "5.6.7.8")).toBe(true);
    now += 60_000;
    expect(limits.take("invitation", "1.2.3.4")).toBe(true);
  });
});
