// Imports against the layer table that exist today, each named exactly. The list only shrinks:
// scripts/layers.test.ts fails on any violation not listed here, and on an entry that no longer
// happens (delete it then). A new import that breaks the table is changed, never added here.

export type KnownViolation = { rule: string; from: string; to: string[] };

export const KNOWN_VIOLATIONS: KnownViolation[] = [
  // The turn loop reads and writes the database itself; the agent store port of issue 40 (built
  // once at the composition root, as own-tools.ts already is for the tools) removes these.
  {
    rule: "agent-room",
    from: "server/agent/compaction.ts",
    to: ["server/db/client.ts", "server/db/repositories/session-events.ts"],
  },
  { rule: "agent-room", from: "server/agent/direct-run.ts", to: ["server/db/repositories/session-events.ts"] },
  {
    rule: "agent-room",
    from: "server/agent/event-stream.ts",
    to: ["server/db/client.ts", "server/db/repositories/session-events.ts"],
  },
  {
    rule: "agent-room",
    from: "server/agent/events.ts",
    to: ["server/db/client.ts", "server/db/repositories/session-events.ts"],
  },
  {
    rule: "agent-room",
    from: "server/agent/own-tools.ts",
    to: [
      "server/db/client.ts",
      "server/db/repositories/approvals.ts",
      "server/db/repositories/memories.ts",
      "server/db/repositories/notes.ts",
      "server/db/repositories/session-events.ts",
      "server/db/repositories/todos.ts",
      "server/db/repositories/users.ts",
    ],
  },
  {
    rule: "agent-room",
    from: "server/agent/run.ts",
    to: [
      "server/db/client.ts",
      "server/db/repositories/session-events.ts",
      "server/db/repositories/session-images.ts",
      "server/db/repositories/sessions.ts",
    ],
  },
  { rule: "agent-room", from: "server/agent/runtime-options.ts", to: ["server/db/client.ts"] },
  {
    rule: "agent-room",
    from: "server/agent/runtime.ts",
    to: [
      "server/db/repositories/approvals.ts",
      "server/db/repositories/session-events.ts",
      "server/db/repositories/session-images.ts",
      "server/db/repositories/sessions.ts",
      "server/db/repositories/turn-jobs.ts",
    ],
  },
  {
    rule: "agent-room",
    from: "server/agent/start-up.ts",
    to: ["server/db/client.ts", "server/db/repositories/session-events.ts", "server/db/repositories/sessions.ts"],
  },
  {
    rule: "agent-room",
    from: "server/agent/subagent-host.ts",
    to: ["server/db/client.ts", "server/db/repositories/sessions.ts"],
  },
  {
    rule: "agent-room",
    from: "server/agent/subagents.ts",
    to: ["server/db/client.ts", "server/db/repositories/sessions.ts"],
  },
  {
    rule: "agent-room",
    from: "server/agent/tool-calls.ts",
    to: ["server/db/client.ts", "server/db/repositories/approvals.ts", "server/db/repositories/session-images.ts"],
  },
  { rule: "agent-room", from: "server/agent/turn-leases.ts", to: ["server/db/repositories/turn-jobs.ts"] },
  {
    rule: "agent-room",
    from: "server/agent/turn-setup.ts",
    to: [
      "server/db/client.ts",
      "server/db/repositories/agent-settings.ts",
      "server/db/repositories/memories.ts",
      "server/db/repositories/session-events.ts",
      "server/db/repositories/sessions.ts",
      "server/db/repositories/settings.ts",
    ],
  },
  {
    rule: "agent-room",
    from: "server/agent/usage.ts",
    to: ["server/db/client.ts", "server/db/repositories/agent-settings.ts"],
  },
  {
    rule: "agent-room",
    from: "server/agent/web-search-backend.ts",
    to: ["server/db/client.ts", "server/db/repositories/settings.ts"],
  },
  // The provider config's type comes from env.ts; issue 40's provider table moves it to lib/.
  { rule: "agent-room", from: "server/agent/embedding-models.ts", to: ["server/env.ts"] },
  { rule: "agent-room", from: "server/agent/model-thread/protocol.ts", to: ["server/env.ts"] },
  { rule: "agent-room", from: "server/agent/provider-factories.ts", to: ["server/env.ts"] },
  { rule: "agent-room", from: "server/agent/providers.ts", to: ["server/env.ts"] },
  // Tools that name a repository's row type; they reach storage through ToolContext already, and
  // the same store port gives them the types.
  { rule: "tools-room", from: "server/tools/memory.ts", to: ["server/db/repositories/memories.ts"] },
  { rule: "tools-room", from: "server/tools/note.ts", to: ["server/db/repositories/notes.ts"] },
  { rule: "tools-room", from: "server/tools/recall-user-context.ts", to: ["server/db/repositories/memories.ts"] },
  { rule: "tools-room", from: "server/tools/session-search.ts", to: ["server/db/repositories/session-events.ts"] },
  { rule: "tools-room", from: "server/tools/todo-write.ts", to: ["server/db/repositories/todos.ts"] },
];
