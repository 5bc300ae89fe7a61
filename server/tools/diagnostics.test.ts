import { describe, expect, it } from "vitest";
import { diagnosticsTool } from "./diagnostics";
import { useLanguageServers, writeProject } from "@/server/test/language-project";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();
const languageFor = useLanguageServers();

describe("diagnostics", () => {
  it("lists a file's type error, then what is known for the workspace", async () => {
    const s = await session();
    await writeProject(s.root);
    const language = languageFor(s.ctx.workspace);
    const file = await s.run(diagnosticsTool, { path: "src/broken.ts" }, { language });
    expect(file.error).toBeUndefined();
    expect(file.llm).toMatch(
      /src\/broken\.ts:1:14 error \[typescript 2322\]: Type 'string' is not assignable to type 'number'/,
    );
    const all = await s.run(diagnosticsTool, {}, { language });
    expect(all.llm).toContain("src/broken.ts:1:14");
    const clean = await s.run(diagnosticsTool, { path: "src/shapes.ts" }, { language });
    expect(clean.llm).toBe("No problems reported for src/shapes.ts.");
  }, 60_000);

  it("refuses paths outside the workspace and says when no server is there", async () => {
    const s = await session();
    const language = languageFor(s.ctx.workspace);
    expect((await s.run(diagnosticsTool, { path: "../x.ts" }, { language })).error?.code).toBe("OUTSIDE_WORKSPACE");
    expect((await s.run(diagnosticsTool, { path: "notes.txt" }, { language })).error?.code).toBe("UNAVAILABLE");
    expect((await s.run(diagnosticsTool, { path: "a.ts" })).error?.code).toBe("UNAVAILABLE");
  }, 30_000);
});
