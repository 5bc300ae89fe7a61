import { z } from "zod";
import { defineTool } from "./define-tool";
import { ok } from "./result";

// catalog: what the agent can draw on in this project, with descriptions: named agents (for
// delegate), skills (for skill), workflows (for workflow) and its tools.

export type CatalogEntry = { name: string; description: string };
export type Catalog = {
  agents: CatalogEntry[];
  skills: CatalogEntry[];
  workflows: CatalogEntry[];
  tools: CatalogEntry[];
  problems: string[];
};

const CATEGORIES = ["agents", "skills", "workflows", "tools"] as const;
const USE: Record<(typeof CATEGORIES)[number], string> = {
  agents: "delegate to one with delegate {agent, task}",
  skills: "load one with skill {name}",
  workflows: "run one with workflow {workflow, inputs}",
  tools: "call them directly",
};

// Made once: the tool is made anew for each turn, its schema (and the model's JSON schema of it) is not.
const CATALOG_INPUT = z.object({ category: z.enum(CATEGORIES).optional() });

export function catalogTool(load: () => Promise<Catalog>) {
  return defineTool({
    name: "catalog",
    onDemand: "always",
    kind: "read",
    description:
      "List what is available in this project, with descriptions: named `agents` (defined in .tandem/agents) to delegate to, " +
      "`skills` (.tandem/skills) to load when a task matches one, `workflows` (.tandem/workflows) to run, and your `tools`. " +
      "Leave out `category` for everything.",
    input: CATALOG_INPUT,
    describe: (i) => `Catalog${i.category ? `: ${i.category}` : ""}`,
    async execute(i) {
      const catalog = await load();
      const sections = (i.category ? [i.category] : CATEGORIES).map((category) => {
        const entries = catalog[category];
        const lines = entries.length
          ? entries.map((e) => `- ${e.name}: ${firstLine(e.description)}`).join("\n")
          : "(none)";
        return `## ${category} (${USE[category]})\n${lines}`;
      });
      if (catalog.problems.length) sections.push(`## problems\n${catalog.problems.map((p) => `- ${p}`).join("\n")}`);
      const text = sections.join("\n\n");
      return ok(text, { kind: "markdown", text });
    },
  });
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
