import { describe, expect, it } from "vitest";
import { pixelColumnStorage } from "@/components/ide/column-widths";

const memory = () => {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    items,
  };
};

describe("pixelColumnStorage", () => {
  it("gives the side columns back their pixels in a window of another width, and the rest to the middle", () => {
    const backing = memory();
    let width = 1000;
    const storage = pixelColumnStorage(backing, ["side", "agent"], () => width);
    storage.setItem("k", JSON.stringify({ side: 30, main: 40, agent: 30 }));
    expect(JSON.parse(backing.items.get("k")!)).toEqual({ side: 300, main: 400, agent: 300 });

    width = 2000;
    expect(JSON.parse(storage.getItem("k")!)).toEqual({ side: 15, agent: 15, main: 70 });
  });

  it("keeps a collapsed column collapsed", () => {
    const backing = memory();
    const storage = pixelColumnStorage(backing, ["side", "agent"], () => 1000);
    storage.setItem("k", JSON.stringify({ side: 0, main: 70, agent: 30 }));
    expect(JSON.parse(storage.getItem("k")!)).toMatchObject({ side: 0, main: 70 });
  });

  it("treats what it cannot read as nothing remembered", () => {
    const backing = memory();
    backing.setItem("k", "{not json");
    expect(pixelColumnStorage(backing, ["side"], () => 1000).getItem("k")).toBeNull();
    backing.setItem("k", JSON.stringify({ side: "wide" }));
    expect(pixelColumnStorage(backing, ["side"], () => 1000).getItem("k")).toBeNull();
  });

  it("measures the group once per stored layout and window size, not on every read", () => {
    // The panel library reads the layout on every render; each measure is a forced layout.
    const backing = memory();
    backing.setItem("k", JSON.stringify({ side: 300, main: 400, agent: 300 }));
    let measured = 0;
    let width = 1000;
    let resizes = 0;
    const storage = pixelColumnStorage(
      backing,
      ["side", "agent"],
      () => (measured++, width),
      () => resizes,
    );
    for (let i = 0; i < 5; i++) expect(JSON.parse(storage.getItem("k")!)).toEqual({ side: 30, agent: 30, main: 40 });
    expect(measured).toBe(1);

    width = 2000;
    resizes++;
    expect(JSON.parse(storage.getItem("k")!)).toEqual({ side: 15, agent: 15, main: 70 });
    expect(measured).toBe(2);

    backing.setItem("k", JSON.stringify({ side: 200, main: 1400, agent: 400 }));
    expect(JSON.parse(storage.getItem("k")!)).toEqual({ side: 10, agent: 20, main: 70 });
    expect(measured).toBe(3);
  });
});
