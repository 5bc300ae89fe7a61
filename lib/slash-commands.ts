// The composer's slash commands: `/name args` typed at the start of a message runs a command
// instead of sending it. Built-in ones act on the session (components/chat/session-commands.ts);
// the project's skills and workflows are offered as `/name` too.

export type SlashCommand = {
  name: string;
  args?: string;
  description: string;
  source: "builtin" | "skill" | "workflow";
};

export const BUILTIN_COMMANDS: SlashCommand[] = [
  {
    name: "model",
    args: "provider:model",
    description: "Switch this session's model (its next turn uses it)",
    source: "builtin",
  },
  { name: "compact", description: "Summarise the conversation now, to free context", source: "builtin" },
  { name: "clear", description: "Start a new session with the same model", source: "builtin" },
  { name: "cost", description: "Show this session's tokens and cost", source: "builtin" },
  { name: "memory", description: "Open the agent's memory", source: "builtin" },
  { name: "undo", description: "Restore the files to before the last turn's changes", source: "builtin" },
  { name: "share", description: "Share this session with a link", source: "builtin" },
];

/** `/name rest` → { name, args }; null for ordinary text (also `//x` and a path such as `/usr/bin`). */
export function parseSlash(text: string): { name: string; args: string } | null {
  const match = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return null;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? "").trim() };
}
