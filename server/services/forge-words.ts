import type { GitError } from "@/server/git/errors";

// What Tandem says about a forge request, and to whom (forge-requests.ts): on the forge, only its
// own fixed words (a hostile remote or a provider's error text never reaches a public comment); in
// the session, for the project's members, what git said.

/** What git said, for the project's members: its message and its last lines, which may be the remote's own words. */
export const gitWords = (error: GitError) =>
  error.detail && !error.message.includes(error.detail) ? `${error.message}\n${error.detail}` : error.message;

/**
 * The ends of a turn that bring no result, as the forge's comment names them: in Tandem's words,
 * never the turn's own message (a provider's error text, a tool's output).
 */
export const FAILED: Record<string, string> = {
  cancelled: "it was cancelled",
  error: "it failed (the session says why)",
  interrupted: "it was interrupted",
  step_limit: "it reached its step limit",
  loop_guard: "it kept repeating itself",
  budget: "a budget was spent",
};
