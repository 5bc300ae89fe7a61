import { describe, expect, it } from "vitest";
import { effectOf } from "./define-tool";
import { readFileTool } from "./read-file";
import { webFetchTool } from "./web-fetch";

describe("effectOf", () => {
  it("answers by kind, and for a read-only kind by its mutates for the input", () => {
    expect(effectOf(readFileTool, { path: "a.ts" })).toBe("none");
    expect(effectOf(webFetchTool, { url: "https://example.com" })).toBe("none");
    expect(effectOf(webFetchTool, { url: "https://example.com", download: true })).toBe("workspace");
    expect(effectOf(webFetchTool, { url: 42, download: true })).toBe("none"); // invalid input runs nothing
    expect(effectOf({ ...readFileTool, kind: "edit" }, {})).toBe("workspace");
    expect(effectOf({ ...readFileTool, kind: "execute" }, {})).toBe("workspace");
    expect(effectOf({ ...readFileTool, kind: "memory" }, {})).toBe("state");
    expect(effectOf({ ...readFileTool, kind: "agent" }, {})).toBe("state");
  });
});
