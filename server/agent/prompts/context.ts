// The Context section of the system prompt: what the project adds to the fixed prompt. Each part
// has a budget so a large AGENTS.md or a long memory cannot crowd out the conversation, and a
// notice says when something was cut and how to get the rest.

import type { KnowledgePassage } from "@/server/agent/prompts/knowledge-context";

export const INSTRUCTION_FILES = ["AGENTS.md", "TANDEM.md"] as const;
export const MAX_INSTRUCTION_CHARS = 20_000;
/** Memories shown whole (pinned first, then the most relevant to the new message). */
export const MEMORY_FULL_CHARS = 6_000;
/** The other memories' keys with their first lines. */
export const MEMORY_KEYS_CHARS = 2_000;
const MAX_CATALOG_ENTRIES = 30;

export type InstructionFile = { path: string; content: string; totalChars: number };
export type MemoryEntry = { scope: "project" | "user"; key: string; value: string; pinned: boolean };
export type NamedEntry = { name: string; description: string };

export type PromptContext = {
  listing: { entries: string[]; total: number };
  instructions: InstructionFile[];
  memories: {
    shown: MemoryEntry[];
    keys: Array<{ scope: "project" | "user"; key: string; firstLine: string }>;
    moreKeys: number;
  };
  catalog: { skills: NamedEntry[]; agents: NamedEntry[]; workflows: NamedEntry[] };
  /** Knowledge-base passages that clearly match the latest question (knowledge-context.ts). */
  knowledge?: KnowledgePassage[];
  /** The latest message states a preference ("I prefer …"): the model offers to remember it. */
  statedPreference?: boolean;
};

export const EMPTY_CONTEXT: PromptContext = {
  listing: { entries: [], total: 0 },
  instructions: [],
  memories: { shown: [], keys: [], moreKeys: 0 },
  catalog: { skills: [], agents: [], workflows: [] },
};

/** "3 memories, AGENTS.md": what a turn's prompt carried, for people to see. */
export function contextUsed(context: PromptContext): { memories: number; files: string[] } {
  return { memories: context.memories.shown.length, files: context.instructions.map((f) => f.path) };
}

/** Cuts an instruction file to its budget. */
export function instructionFile(path: string, content: string): InstructionFile {
  const text = content.trim();
  return {
    path,
    content: text.length > MAX_INSTRUCTION_CHARS ? text.slice(0, MAX_INSTRUCTION_CHARS) : text,
    totalChars: text.length,
  };
}

export function renderInstruction(file: InstructionFile, heading: string): string {
  const cut =
    file.totalChars > file.content.length
      ? `\n\n[${file.path} was cut here: ${file.content.length} of ${file.totalChars} characters are shown. Read the file for the rest.]`
      : "";
  return `${heading}\n\n${file.content}${cut}`;
}

/** Picks the memories shown whole, in order, within the budget; the rest are listed by key. */
export function selectMemories(
  candidates: MemoryEntry[],
  all: MemoryEntry[],
  budgets = { full: MEMORY_FULL_CHARS, keys: MEMORY_KEYS_CHARS },
): PromptContext["memories"] {
  const shown: MemoryEntry[] = [];
  const ids = new Set<string>();
  let used = 0;
  for (const memory of candidates) {
    const id = `${memory.scope}:${memory.key}`;
    if (ids.has(id)) continue;
    const size = memory.key.length + memory.value.length + 20;
    if (used + size > budgets.full) continue;
    used += size;
    ids.add(id);
    shown.push(memory);
  }
  const keys: PromptContext["memories"]["keys"] = [];
  let keyChars = 0;
  let moreKeys = 0;
  for (const memory of all) {
    if (ids.has(`${memory.scope}:${memory.key}`)) continue;
    const firstLine = (memory.value.trim().split("\n")[0] ?? "").slice(0, 120);
    const size = memory.key.length + firstLine.length + 12;
    if (keyChars + size > budgets.keys) {
      moreKeys += 1;
      continue;
    }
    keyChars += size;
    keys.push({ scope: memory.scope, key: memory.key, firstLine });
  }
  return { shown, keys, moreKeys };
}

export function renderContext(context: PromptContext, knowledge: string): string {
  const parts = [
    [
      "# Context",
      "- The project's instruction files (AGENTS.md, TANDEM.md) below take precedence over the defaults above. Instruction files in sub-folders apply to the files there: they are shown to you the first time you read or edit a file in that folder.",
      knowledge,
    ]
      .filter(Boolean)
      .join("\n"),
  ];
  const { entries, total } = context.listing;
  parts.push(
    `## Top level of the workspace${total > entries.length ? ` (first ${entries.length} of ${total} entries)` : ""}\n${entries.join("\n") || "(empty)"}`,
  );
  for (const file of context.instructions)
    parts.push(renderInstruction(file, `## Project instructions (${file.path})`));
  const memory = renderMemories(context.memories);
  if (memory) parts.push(memory);
  if (context.statedPreference)
    parts.push(
      "## A stated preference\nThe latest message states a preference. If it is one that should hold beyond this task, call remember_preference with it: the person is asked to agree before it is kept.",
    );
  if (context.knowledge?.length)
    parts.push(
      [
        "## From the project's knowledge base",
        "Passages of the workspace that match the latest question. Answer from them where they apply and cite each one you use as path:lines; search_knowledge_base finds more.",
        ...context.knowledge.map((p) => `### ${p.path}:${p.startLine}-${p.endLine}\n${p.text.trim()}`),
      ].join("\n"),
    );
  const { skills, agents, workflows } = context.catalog;
  if (skills.length) parts.push(renderNamed("## Skills (load one with skill {name} when a task matches it)", skills));
  if (agents.length) parts.push(renderNamed("## Agents (delegate {agent, task} to one)", agents));
  if (workflows.length) parts.push(renderNamed("## Workflows (run one with workflow {workflow, inputs})", workflows));
  return parts.join("\n\n");
}

function renderMemories(memories: PromptContext["memories"]): string {
  if (!memories.shown.length && !memories.keys.length) return "";
  const lines = ["## Memory"];
  if (memories.shown.length) {
    lines.push("Pinned memories and those most relevant to the latest message:");
    for (const m of memories.shown)
      lines.push(`### ${m.key} (${m.scope}${m.pinned ? ", pinned" : ""})\n${m.value.trim()}`);
  }
  if (memories.keys.length) {
    lines.push('Other memories, by key and first line (memory {action: "retrieve", key, scope} for the rest):');
    for (const k of memories.keys) lines.push(`- ${k.key} (${k.scope}): ${k.firstLine}`);
  }
  if (memories.moreKeys) lines.push(`- …and ${memories.moreKeys} more (memory {action: "list"}).`);
  return lines.join("\n");
}

function renderNamed(heading: string, entries: NamedEntry[]): string {
  const shown = entries.slice(0, MAX_CATALOG_ENTRIES).map((e) => `- ${e.name}: ${firstLine(e.description)}`);
  const more =
    entries.length > MAX_CATALOG_ENTRIES ? `\n- …and ${entries.length - MAX_CATALOG_ENTRIES} more (see catalog).` : "";
  return `${heading}\n${shown.join("\n")}${more}`;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}
