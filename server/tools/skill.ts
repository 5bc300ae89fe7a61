import { z } from "zod";
import { defineTool } from "./define-tool";
import { failure, ok } from "./result";

// skill: loads a skill's instructions (.tandem/skills/<name>/SKILL.md) into the conversation when
// the task calls for it, with the list of the bundle's other files to read as the skill says.

export type SkillBundle = { name: string; description: string; instructions: string; files: string[] };

// Made once: the tool is made anew for each turn, its schema (and the model's JSON schema of it) is not.
const SKILL_INPUT = z.object({ name: z.string().min(1).max(64) });

export function skillTool(load: () => Promise<SkillBundle[]>) {
  return defineTool({
    name: "skill",
    kind: "read",
    description:
      "Load a skill: a bundle of instructions (and files) the team wrote for a kind of task, from .tandem/skills/<name>/SKILL.md. " +
      "See the available skills with catalog {category: skills}; load one before doing a task it describes, then follow it.",
    input: SKILL_INPUT,
    describe: (i) => `Load skill ${i.name}`,
    async execute(i) {
      const skills = await load();
      const skill = skills.find((s) => s.name === i.name);
      if (!skill) {
        return failure(
          "NOT_FOUND",
          `No skill named "${i.name}". Available: ${skills.map((s) => s.name).join(", ") || "(none)"}.`,
        );
      }
      const files = skill.files.length
        ? `\n\nFiles of this skill (read them as the instructions say):\n${skill.files.map((f) => `- ${f}`).join("\n")}`
        : "";
      const text = `# Skill: ${skill.name}\n\n${skill.instructions}${files}`;
      return ok(text, { kind: "markdown", text });
    },
  });
}
