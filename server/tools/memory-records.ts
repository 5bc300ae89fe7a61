import { z } from "zod";
import { defineTool } from "./define-tool";
import { type MemoryStore, ownerOf, storeAgentMemory } from "./memory";
import { ok } from "./result";

// record_episode and assert_fact: the seed's episodic and semantic memory, kept in the one memory
// store (memory.ts) so they are searched, listed, pinned and shown in the Memory panel like any
// memory, and reach later prompts the same way. An episode is what happened in a piece of work,
// under a key with its time ("episode/2026-11-29T03:05/fix-login"); a fact is one statement
// under "fact/<subject>/<predicate>", so asserting it again replaces the old one and says what
// it replaced. Project scope asks a person, as memory's store does.

const scope = z
  .enum(["project", "user"])
  .default("project")
  .describe("`project`: shared with the team (asks a person). `user`: your user's own.");

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 60) || "untitled";

export function recordEpisodeTool(store: MemoryStore) {
  return defineTool({
    name: "record_episode",
    kind: "memory",
    description:
      "Remember a finished piece of work as an episode: what was done, how it ended, and the lessons for next time. Later sessions find it with memory search.",
    input: z.object({
      title: z.string().min(1).max(120),
      summary: z.string().min(1).max(4_000).describe("What was tried and what happened."),
      outcome: z.enum(["success", "partial", "failure"]),
      lessons: z.array(z.string().min(1).max(500)).max(10).optional(),
      scope,
    }),
    onDemand: "always",
    needsApproval: (i) => (i.scope === "project" ? "always" : false),
    describe: (i) => `Record episode: ${i.title}`,
    async execute(i, ctx) {
      const at = new Date().toISOString().slice(0, 16);
      const lessons = i.lessons?.length ? `\n\nLessons:\n${i.lessons.map((l) => `- ${l}`).join("\n")}` : "";
      const value = `${i.title} (${i.outcome}, ${at.replace("T", " ")} UTC)\n\n${i.summary.trim()}${lessons}`;
      const row = await storeAgentMemory(store, i.scope, { key: `episode/${at}/${slug(i.title)}`, value }, ctx);
      return ok(`Recorded ${i.scope} episode "${row.key}".`, { kind: "markdown", text: `**${row.key}**\n\n${value}` });
    },
  });
}

export function assertFactTool(store: MemoryStore) {
  return defineTool({
    name: "assert_fact",
    kind: "memory",
    description:
      'Remember one fact as subject, predicate, object ("api server", "listens on", "port 4000"). A fact with the same subject and predicate is replaced, and the old one is returned.',
    input: z.object({
      subject: z.string().min(1).max(100),
      predicate: z.string().min(1).max(100),
      object: z.string().min(1).max(2_000),
      scope,
    }),
    onDemand: "always",
    needsApproval: (i) => (i.scope === "project" ? "always" : false),
    describe: (i) => `Assert: ${i.subject} ${i.predicate} ${i.object.slice(0, 60)}`,
    async execute(i, ctx) {
      const key = `fact/${slug(i.subject)}/${slug(i.predicate)}`;
      const value = `${i.subject.trim()} ${i.predicate.trim()} ${i.object.trim()}`;
      const before = await store.retrieve(ownerOf(i.scope, ctx), key);
      if (before?.value === value) return ok(`Already known (${i.scope} memory "${key}"): ${value}`);
      await storeAgentMemory(store, i.scope, { key, value }, ctx);
      const replaced = before ? ` It replaces: ${before.value}` : "";
      return ok(
        `Asserted ${i.scope} fact "${key}": ${value}.${replaced}`,
        { kind: "markdown", text: `**${key}**\n\n${value}${before ? `\n\n~~${before.value}~~` : ""}` },
        { key, replaced: before?.value ?? null },
      );
    },
  });
}
