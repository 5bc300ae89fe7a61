import { describe, expect, it } from "vitest";
import { referencesTool } from "./references";
import { useLanguageServers, writeProject } from "@/server/test/language-project";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();
const languageFor = useLanguageServers();

describe("references", () => {
  it("finds the uses of a symbol across files", async () => {
    const s = await session();
    await writeProject(s.root);
    const language = languageFor(s.ctx.workspace);
    const run = await s.run(referencesTool, { symbol: "area" }, { language });
    expect(run.llm).toMatch(/^5 references in 3 files:/);
    for (const place of ["src/shapes.ts:1:17", "src/a.ts:1:10", "src/a.ts:2:22", "src/b.ts:1:10", "src/b.ts:2:22"])
      expect(run.llm).toContain(place);
  }, 60_000);
});
