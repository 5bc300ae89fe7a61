import type { Workspace } from "@/server/workspace";

// The system prompt of a turn: who the agent is, the workspace facts, today's date, and the
// project's own instruction files (AGENTS.md, TANDEM.md at the workspace root) when present.

export const INSTRUCTION_FILES = ["AGENTS.md", "TANDEM.md"] as const;
const MAX_INSTRUCTION_CHARS = 20_000;
const MAX_LISTED = 60;

const BASE = `You are Tandem's coding agent. You work in a project's workspace together with a team of
people who watch your work live, review your edits and may answer your questions.

- Use the tools to read, search, edit and run things; paths are relative to the workspace root.
- Read a file before you change it. Keep changes small and focused on what was asked.
- When a tool call fails, read the error: it says what to fix. Do not repeat a failing call unchanged.
- If the request is ambiguous or a decision belongs to people, ask with ask_user instead of guessing.
- When you are done, say briefly what you changed and what is left.`;

export const SUBAGENT_NOTE = `You are a sub-agent: another agent delegated one task to you. Do only that task, with
the tools you have, then answer with a concise, self-contained report of what you found or did:
your answer is all the delegating agent will see.`;

export async function buildSystemPrompt(input: {
  workspace: Workspace;
  projectName: string;
  now: Date;
  subagent?: boolean;
  toolNames: string[];
}): Promise<string> {
  const sections = [BASE];
  if (input.subagent) sections.push(SUBAGENT_NOTE);
  const entries = await input.workspace.list("").catch(() => []);
  const shown = entries.filter((e) => !e.ignored && e.name !== ".tandem").slice(0, MAX_LISTED);
  const listing = shown.map((e) => (e.type === "directory" ? `${e.name}/` : e.name)).join("\n");
  sections.push(
    [
      "# Workspace",
      `Project: ${input.projectName}`,
      `Today: ${input.now.toISOString().slice(0, 10)}`,
      `Tools: ${input.toolNames.join(", ")}`,
      `Top level of the workspace${entries.length > shown.length ? ` (first ${shown.length} entries)` : ""}:`,
      listing || "(empty)",
    ].join("\n"),
  );
  for (const name of INSTRUCTION_FILES) {
    const file = await input.workspace.read(name).catch(() => null);
    if (file?.kind !== "text" || !file.content.trim()) continue;
    const content = file.content.length > MAX_INSTRUCTION_CHARS ? `${file.content.slice(0, MAX_INSTRUCTION_CHARS)}\n[... cut]` : file.content;
    sections.push(`# Project instructions (${name})\n\n${content.trim()}`);
  }
  return sections.join("\n\n");
}
