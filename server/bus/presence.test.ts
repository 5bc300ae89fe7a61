import { describe, expect, it } from "vitest";
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
