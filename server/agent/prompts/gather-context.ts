import type { Workspace } from "@/server/workspace";
import { AGENTS_DIR, loadAgents, loadSkills, SKILLS_DIR } from "@/server/agent/definitions";
import { loadWorkflows, WORKFLOWS_DIR } from "@/server/tools/workflow-engine";
import type { KnowledgeResult } from "@/server/tools/search-knowledge-base";
import { asksForKnowledge, clearPassages } from "@/server/agent/prompts/knowledge-context";
import { statesPreference } from "@/server/tools/remember-preference";
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
  /** The project's knowledge index, searched when the latest message asks something; absent without one. */
  knowledge?(query: string): Promise<KnowledgeResult>;
}): Promise<PromptContext> {
  const [files, memories, knowledge] = await Promise.all([
    workspaceContext(input.workspace, new Set(input.toolNames)),
    gatherMemories(input.memories, input.query),
    input.knowledge && asksForKnowledge(input.query) ? input.knowledge(input.query).then(clearPassages, () => []) : [],
  ]);
  const named = (list: Array<{ name: string; description: string }>) =>
    list.map((e) => ({ name: e.name, description: e.description || "(no description)" }));
  const { listing, instructions, skills, agents, workflows } = files;
  return {
    listing,
    instructions,
    memories,
    catalog: { skills: named(skills), agents: named(agents), workflows: named(workflows) },
    ...(knowledge.length ? { knowledge } : {}),
    ...(input.toolNames.includes("remember_preference") && statesPreference(input.query)
      ? { statedPreference: true }
      : {}),
  };
}

/**
 * What the workspace contributes. The top level is listed first, and only the instruction files
 * and .tandem folders it (and .tandem's listing) shows are read: looking up a file that is not
 * there costs several path checks (realpath and lstat up the tree), which at every turn's start
 * were a tenth of its CPU (bench:stream). Listing is as fresh as reading, so a file added since
 * the last turn is seen by the next.
 */
async function workspaceContext(workspace: Workspace, tools: ReadonlySet<string>) {
  const entries = await workspace.list("").catch(() => []);
  const atRoot = new Set(entries.map((e) => e.name));
  const inTandem = atRoot.has(".tandem")
    ? new Set((await workspace.list(".tandem").catch(() => [])).map((e) => e.name))
    : new Set<string>();
  const defined = (dir: string, tool: string) => tools.has(tool) && inTandem.has(dir.slice(".tandem/".length));
  const [instructions, skills, agents, workflows] = await Promise.all([
    rootInstructions(workspace, atRoot),
    defined(SKILLS_DIR, "skill") ? loadSkills(workspace).then((r) => r.skills) : [],
    defined(AGENTS_DIR, "delegate") ? loadAgents(workspace).then((r) => r.agents) : [],
    defined(WORKFLOWS_DIR, "workflow") ? loadWorkflows(workspace).then((r) => r.workflows) : [],
  ]);
  const visible = entries.filter((e) => !e.ignored && e.name !== ".tandem");
  const listing = {
    entries: visible.slice(0, MAX_LISTED).map((e) => (e.type === "directory" ? `${e.name}/` : e.name)),
    total: visible.length,
  };
  return { listing, instructions, skills, agents, workflows };
}

async function rootInstructions(workspace: Workspace, atRoot: ReadonlySet<string>): Promise<InstructionFile[]> {
  const files: InstructionFile[] = [];
  for (const name of INSTRUCTION_FILES) {
    if (!atRoot.has(name)) continue;
    const file = await workspace.read(name).catch(() => null);
    if (file?.kind !== "text" || !file.content.trim()) continue;
    files.push(instructionFile(name, file.content));
  }
  return files;
}

async function gatherMemories(source: MemorySource, query: string): Promise<PromptContext["memories"]> {
  // Searched only when there is something to find: most turns of a project without memories then
  // cost one query here, not two (a turn with memories waits for one more round trip).
  const all = await source.all();
  const relevant = all.length && query.trim() ? await source.relevant(query, RELEVANT_LIMIT) : [];
  return selectMemories([...all.filter((m) => m.pinned), ...relevant], all);
}
