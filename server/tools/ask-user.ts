import { z } from "zod";
import { defineTool } from "./define-tool";
import { failure, ok } from "./result";

// ask_user: the agent asks the session's people a question. The runtime sees the call (`question`),
// records a durable request and the turn waits, like an approval, until someone answers; then
// this tool runs and hands the answer, and who gave it, back to the model.

const ASK_USER = "ask_user";

const input = z.object({
  question: z.string().min(1).describe("The question, self-contained: people may read it hours later."),
  options: z
    .array(z.string().min(1))
    .min(2)
    .max(10)
    .optional()
    .describe("Choices to offer; people may still answer in their own words."),
  multi_select: z.boolean().optional().describe("Whether several options may be picked."),
});

export type Answer = { answer: string | string[] | null; declined: boolean; by: { id: string; name: string } | null };

/** Finds the answer given to this call (the runtime binds it to the approvals table). */
export type AnswerLookup = (sessionId: string, toolCallId: string) => Promise<Answer | null>;

export function askUserTool(answers: AnswerLookup) {
  return defineTool({
    name: ASK_USER,
    kind: "think",
    mainAgentOnly: true,
    description:
      "Ask the people in this session a question and wait for their answer. Use it when a decision is theirs " +
      "(a choice between approaches, missing requirements, credentials you must not guess). Offer `options` when " +
      "the answer is one of a few choices. The answer may take a while; the session waits durably.",
    input,
    describe: (i) => `Ask: ${i.question.slice(0, 80)}`,
    question: (i) => ({ question: i.question, options: i.options, multiSelect: i.multi_select }),
    async execute(_i, ctx) {
      const found = ctx.toolCallId ? await answers(ctx.sessionId, ctx.toolCallId) : null;
      if (!found)
        return failure("UNAVAILABLE", "No answer was recorded for this question. Ask again if you still need it.");
      const who = found.by ? `${found.by.name}` : "Someone";
      if (found.declined) return ok(`${who} declined to answer.`);
      const text = Array.isArray(found.answer) ? found.answer.join(", ") : (found.answer ?? "");
      return ok(`${who} answered: ${text}`, { kind: "text", text: `${who}: ${text}` });
    },
  });
}
