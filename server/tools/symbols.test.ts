import { describe, expect, it } from "vitest";
import { symbolsTool } from "./symbols";
import { useLanguageServers, writeProject } from "@/server/test/language-project";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();
const languageFor = useLanguageServers();

describe("symbols", () => {
  it("lists a file's outline and finds workspace symbols by name", async () => {
    const s = await session();
    await writeProject(s.root, {
      "src/geo.ts":
        "export class Circle {\n  radius = 1;\n  area(): number {\n    return 3 * this.radius ** 2;\n  }\n}\nexport const unit = new Circle();\n",
    });
    const language = languageFor(s.ctx.workspace);
    const outline = await s.run(symbolsTool, { path: "src/geo.ts" }, { language });
    expect(outline.llm).toContain("class Circle — src/geo.ts:1:14");
    expect(outline.llm).toContain("method Circle.area — src/geo.ts:3:3");
    const found = await s.run(symbolsTool, { query: "Circle" }, { language });
    expect(found.llm).toContain("class Circle — src/geo.ts:1:14");
    expect((await s.run(symbolsTool, { query: "Zebra" }, { language })).error?.code).toBe("NO_MATCH");
    expect((await s.run(symbolsTool, { query: "a", path: "src/geo.ts" }, { language })).error?.code).toBe(
      "INVALID_INPUT",
    );
  }, 60_000);
});
