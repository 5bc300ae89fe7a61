import { describe, expect, it } from "vitest";
import { tabFolders } from "@/components/editor/tab-labels";

describe("tabFolders", () => {
  it("gives nothing to a file whose name no other tab has", () => {
    expect(tabFolders(["src/a/utils.ts", "src/b/index.ts"]).size).toBe(0);
  });

  it("gives each same-named file the last folder when that tells them apart", () => {
    expect(tabFolders(["src/a/utils.ts", "src/b/utils.ts", "README.md"])).toEqual(
      new Map([
        ["src/a/utils.ts", "a"],
        ["src/b/utils.ts", "b"],
      ]),
    );
  });

  it("takes more folders from the end until the paths differ", () => {
    expect(tabFolders(["lib/x/utils.ts", "app/x/utils.ts", "app/y/utils.ts"])).toEqual(
      new Map([
        ["lib/x/utils.ts", "lib/x"],
        ["app/x/utils.ts", "app/x"],
        ["app/y/utils.ts", "y"],
      ]),
    );
  });

  it("shows the whole folder of a path that is the end of another, and nothing for a file at the root", () => {
    expect(tabFolders(["x/utils.ts", "a/x/utils.ts", "utils.ts"])).toEqual(
      new Map([
        ["x/utils.ts", "x"],
        ["a/x/utils.ts", "a/x"],
      ]),
    );
  });
});
