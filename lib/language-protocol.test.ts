import { describe, expect, it } from "vitest";
import { editorPattern, editorServerOf } from "./language-protocol";

// Which server the editor connects a file to: the configured servers' globs first, as the server's
// registry decides for the agent, then the built-in server of Monaco's language.

const configured = [
  { id: "mts", files: ["*.mts"], languageId: "typescript" },
  { id: "gen", files: ["src/gen/**/*.ts"], languageId: "typescript" },
];

describe("editorServerOf", () => {
  it("gives a configured server the files its globs name, ahead of the built-in one of their language", () => {
    expect(editorServerOf("lib/a.mts", "typescript", configured)).toEqual({ server: "mts", languageId: "typescript" });
    expect(editorServerOf("src/gen/x/b.ts", "typescript", configured)).toEqual({
      server: "gen",
      languageId: "typescript",
    });
    expect(editorServerOf("src/b.ts", "typescript", configured)).toEqual({
      server: "typescript",
      languageId: "typescript",
    });
    expect(editorServerOf("src/c.tsx", "typescript", [])).toEqual({
      server: "typescript",
      languageId: "typescriptreact",
    });
    expect(editorServerOf("main.go", "go", configured)).toBeUndefined();
  });

  it("turns a glob into Monaco's pattern over /<workspace path>", () => {
    expect(editorPattern("*.mts")).toBe("**/*.mts");
    expect(editorPattern("src/gen/**/*.ts")).toBe("/src/gen/**/*.ts");
  });
});
