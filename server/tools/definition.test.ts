import { describe, expect, it } from "vitest";
import { definitionTool } from "./definition";
import { useLanguageServers, writeProject } from "@/server/test/language-project";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();
const languageFor = useLanguageServers();

describe("definition", () => {
  it("goes from a use to the definition in another file, by position or by name", async () => {
    const s = await session();
    await writeProject(s.root);
    const language = languageFor(s.ctx.workspace);
    const byPosition = await s.run(definitionTool, { path: "src/a.ts", line: 2, column: 22 }, { language });
    expect(byPosition.llm).toBe("Defined at:\nsrc/shapes.ts:1:17");
    const byName = await s.run(definitionTool, { symbol: "area" }, { language });
    expect(byName.llm).toContain("src/shapes.ts:1:17");
    const missing = await s.run(definitionTool, { symbol: "volume" }, { language });
    expect(missing.error?.code).toBe("NOT_FOUND");
    expect((await s.run(definitionTool, { path: "src/a.ts" }, { language })).error?.code).toBe("INVALID_INPUT");
  }, 60_000);
});
