// A few lines per model family, where the anchors' prompts show that family needs them (Claude
// Code for Claude, Codex CLI for GPT and the o-series, Gemini CLI for Gemini, opencode and Cline
// for small open models behind an OpenAI-compatible server). The family is read from the model's
// name, so a gateway serving claude-* or gpt-* gets its family's lines too.

export type ModelFamily = "claude" | "gpt" | "o-series" | "gemini" | "open";

export function modelFamily(modelId: string): ModelFamily {
  const colon = modelId.indexOf(":");
  const provider = colon > 0 ? modelId.slice(0, colon) : "";
  const name = (colon > 0 ? modelId.slice(colon + 1) : modelId).toLowerCase();
  const base = name.slice(name.lastIndexOf("/") + 1);
  if (provider === "anthropic" || base.startsWith("claude")) return "claude";
  if (/^o\d/.test(base)) return "o-series";
  if (provider === "openai" || base.startsWith("gpt")) return "gpt";
  if (provider === "google" || base.startsWith("gemini")) return "gemini";
  return "open";
}

const ADDENDA: Record<ModelFamily, string> = {
  // Claude tends to do more than asked (extra files, abstractions, comments).
  claude:
    "- Do what was asked, nothing more: no extra files, features, abstractions or comments. Make independent tool calls in one step.",
  // GPT models stop to ask for confirmation and narrate plans at length (Codex CLI's prompt).
  gpt: "- Do not stop to ask whether to go on or to confirm a plan you can carry out: act, then report. Keep each preamble to one short sentence.",
  "o-series":
    "- Do not stop to ask whether to go on or to confirm a plan you can carry out: act, then report. Do not restate your reasoning in the answer; give results.",
  // Gemini edits from memory of a file rather than from what it read (Gemini CLI's prompt).
  gemini:
    "- Copy old_string from what read_file returned, never from memory. Say in one line why before a command that changes files.",
  // Small open models invent tool names and malformed arguments (opencode, Cline).
  open: "- Call only the tools you were given, with arguments that match their schema exactly; for a tool named in tool_search's list, load it with tool_search first. Keep answers short.",
};

/** The family's addendum to the working method. */
export function familyAddendum(modelId: string): string {
  return ADDENDA[modelFamily(modelId)];
}
