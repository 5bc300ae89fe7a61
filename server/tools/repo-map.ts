import { z } from "zod";
import { defineTool } from "./define-tool";
import { asking, languageOf, workspacePath } from "./language-access";
import { ok } from "./result";

const DESCRIPTION = `A map of the repository: its source files with their most important definitions (functions, classes, types...), ranked by how much the rest of the code refers to them, within a token budget.
- Use it first on a large or unfamiliar codebase to see where things are, then read the files that matter.
- focus: files you are working on; the map then favours what they use.
- Covers TypeScript, JavaScript and Python; updated as files change.`;

export const repoMapTool = defineTool({
  name: "repo_map",
  onDemand: "always",
  kind: "search",
  description: DESCRIPTION,
  input: z.object({
    focus: z.array(z.string().min(1)).max(50).optional().describe("Files to centre the map on (workspace paths)."),
    max_tokens: z.number().int().min(256).max(8192).optional().describe("Size of the map; 1024 by default."),
  }),
  describe: (input) => (input.focus?.length ? `Repository map around ${input.focus.join(", ")}` : "Repository map"),
  output: { maxChars: 40_000 },
  async execute(input, ctx) {
    const language = languageOf(ctx);
    const focus = await Promise.all((input.focus ?? []).map((file) => workspacePath(ctx, file)));
    const map = await asking(() => language.repoMap({ focus, maxTokens: input.max_tokens ?? 1024 }));
    if (map.files === 0) return ok("No TypeScript, JavaScript or Python source files were found to map.");
    const note = `(${map.shownDefinitions} of ${map.definitions} definitions, from ${map.shownFiles} of ${map.files} files; raise max_tokens for more)`;
    return ok(`${map.text}\n${note}`, undefined, { files: map.files, shown: map.shownDefinitions });
  },
});
