// Imports against the layer table that exist today, each named exactly. The list only shrinks:
// scripts/layers.test.ts fails on any violation not listed here, and on an entry that no longer
// happens (delete it then). A new import that breaks the table is changed, never added here.

export type KnownViolation = { rule: string; from: string; to: string[] };

export const KNOWN_VIOLATIONS: KnownViolation[] = [
  // The provider config's type comes from env.ts; issue 40's provider table moves it to lib/.
  { rule: "agent-room", from: "server/agent/embedding-models.ts", to: ["server/env.ts"] },
  { rule: "agent-room", from: "server/agent/model-thread/protocol.ts", to: ["server/env.ts"] },
  { rule: "agent-room", from: "server/agent/provider-factories.ts", to: ["server/env.ts"] },
  { rule: "agent-room", from: "server/agent/providers.ts", to: ["server/env.ts"] },
];
