import type { Workspace } from "@/server/workspace";
import { loadAgents, loadSkills } from "@/server/agent/definitions";
import { loadWorkflows } from "@/server/tools/workflow-engine";
import {
  INSTRUCTION_FILES,
  instructionFile,
  selectMemories,
  type InstructionFile,
  type MemoryEntry,
  type PromptContext,
} from "@/server/agent/prompts/context";

// Gathers the Context section's material for one turn: the workspace's top level, the root
// instruction files, the memories (pinned ones, then those most relevant to the latest message),
// and the project's skills, agents and workflows by name. Memories come through a small source
// interface so this room never touches the database.

const MAX_LISTED = 60;
const RELEVANT_LIMIT = 8;

export interface MemorySource {
  /** The project's and the user's memories, pinned ones first. */
  all(): Promise<MemoryEntry[]>;
  /** The memories that best match a message, best first. */
  relevant(query: string, limit: number): Promise<MemoryEntry[]>;
}

export async function gatherContext(input: {
  workspace: Workspace;
  memories: MemorySource;
  /** The latest person's message: what relevance is measured against. */
  query: string;
  /** The session's tools: skills, agents and workflows are listed only when the tool to use them is there. */
  toolNames: string[];
}): Promise<PromptContext> {
  const { workspace } = input;
  const tools = new Set(input.toolNames);
  const [listing, instructions, memories, skills, agents, workflows] = await Promise.all([
    topLevel(workspace),
    rootInstructions(workspace),
    gatherMemories(input.memories, input.query),
    tools.has("skill") ? loadSkills(workspace).then((r) => r.skills) : [],
    tools.has("delegate") ? loadAgents(workspace).then((r) => r.agents) : [],
    tools.has("workflow") ? loadWorkflows(workspace).then((r) => r.workflows) : [],
  ]);
  const named = (list: Array<{ name: string; description: string }>) => list.map((e) => ({ name: e.name, description: e.description || "(no description)" }));
  return { listing, instructions, memories, catalog: { skills: named(skills), agents: named(agents), workflows: named(workflows) } };
}

async function topLevel(workspace: Workspace): Promise<PromptContext["listing"]> {
  const entries = await workspace.list("").catch(() => []);
  const visible = entries.filter((e) => !e.ignored && e.name !== ".tandem");
  return { entries: visible.slice(0, MAX_LISTED).map((e) => (e.type === "directory" ? `${e.name}/` : e.name)), total: visible.length };
}

async function rootInstructions(workspace: Workspace): Promise<InstructionFile[]> {
  const files: InstructionFile[] = [];
  for (const name of INSTRUCTION_FILES) {
    const file = await workspace.read(name).catch(() => null);
    if (file?.kind !== "text" || !file.content.trim()) continue;
    files.push(instructionFile(name, file.content));
  }
  return files;
}

async function gatherMemories(source: MemorySource, query: string): Promise<PromptContext["memories"]> {
  const [all, relevant] = await Promise.all([source.all(), query.trim() ? source.relevant(query, RELEVANT_LIMIT) : Promise.resolve([])]);
  return selectMemories([...all.filter((m) => m.pinned), ...relevant], all);
}
