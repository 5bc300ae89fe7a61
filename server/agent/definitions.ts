import matter from "gray-matter";
import { z } from "zod";
import type { Workspace } from "@/server/workspace";

// What a team defines in its workspace for the agent: named agents (`.tandem/agents/<name>.md`,
// front matter + instructions) and skills (`.tandem/skills/<name>/SKILL.md`, instruction bundles
// loaded on demand). Read fresh when needed, so an edit applies to the next call. A file that
// does not parse is reported with its problem instead of being dropped silently.

export const AGENTS_DIR = ".tandem/agents";
export const SKILLS_DIR = ".tandem/skills";
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

const agentFront = z.object({
  description: z.string().min(1, "description is required"),
  tools: z
    .union([
      z.array(z.string().min(1)),
      z.string().transform((s) =>
        s
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ])
    .optional(),
  model: z.string().min(1).optional(),
  max_turns: z.number().int().min(1).max(200).optional(),
});

export type AgentDefinition = {
  name: string;
  path: string;
  description: string;
  tools?: string[];
  model?: string;
  maxTurns?: number;
  instructions: string;
};
export type SkillDefinition = {
  name: string;
  path: string;
  description: string;
  instructions: string;
  files: string[];
};
export type DefinitionProblem = { path: string; message: string };

export async function loadAgents(
  workspace: Workspace,
): Promise<{ agents: AgentDefinition[]; problems: DefinitionProblem[] }> {
  const agents: AgentDefinition[] = [];
  const problems: DefinitionProblem[] = [];
  for (const entry of await workspace.list(AGENTS_DIR).catch(() => [])) {
    if (entry.type !== "file" || !entry.name.endsWith(".md")) continue;
    const name = entry.name.slice(0, -3);
    const parsed = await readFront(workspace, entry.path, agentFront);
    if (!NAME.test(name)) problems.push({ path: entry.path, message: "agent names use letters, digits, _ and -" });
    else if ("problem" in parsed) problems.push({ path: entry.path, message: parsed.problem });
    else {
      const { data, body } = parsed;
      agents.push({
        name,
        path: entry.path,
        description: data.description,
        tools: data.tools,
        model: data.model,
        maxTurns: data.max_turns,
        instructions: body,
      });
    }
  }
  return { agents, problems };
}

export async function loadSkills(
  workspace: Workspace,
): Promise<{ skills: SkillDefinition[]; problems: DefinitionProblem[] }> {
  const skills: SkillDefinition[] = [];
  const problems: DefinitionProblem[] = [];
  for (const dir of await workspace.list(SKILLS_DIR).catch(() => [])) {
    if (dir.type !== "directory") continue;
    const file = `${dir.path}/SKILL.md`;
    const parsed = await readFront(
      workspace,
      file,
      z.object({ name: z.string().optional(), description: z.string().min(1, "description is required") }),
    );
    if ("problem" in parsed) {
      if (parsed.problem !== "missing") problems.push({ path: file, message: parsed.problem });
      continue;
    }
    const files = (await workspace.list(dir.path).catch(() => []))
      .filter((e) => e.type === "file" && e.name !== "SKILL.md")
      .map((e) => e.path);
    skills.push({ name: dir.name, path: file, description: parsed.data.description, instructions: parsed.body, files });
  }
  return { skills, problems };
}

async function readFront<T>(
  workspace: Workspace,
  file: string,
  schema: z.ZodType<T>,
): Promise<{ data: T; body: string } | { problem: string }> {
  const read = await workspace.read(file).catch(() => null);
  if (!read) return { problem: "missing" };
  if (read.kind !== "text") return { problem: "not a text file" };
  let front: { data: unknown; content: string };
  try {
    front = matter(read.content);
  } catch (error) {
    return { problem: `front matter is not valid YAML: ${(error as Error).message.split("\n")[0]}` };
  }
  const parsed = schema.safeParse(front.data);
  if (!parsed.success)
    return {
      problem: parsed.error.issues.map((i) => `${i.path.join(".") || "front matter"}: ${i.message}`).join("; "),
    };
  return { data: parsed.data, body: front.content.trim() };
}
