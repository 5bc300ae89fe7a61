import { z } from "zod";
import { defineTool } from "./define-tool";
import { ok } from "./result";

export const thinkTool = defineTool({
  name: "think",
  onDemand: "always",
  kind: "think",
  description:
    "Writes down a thought: a plan, a hypothesis, a check of what you have learned so far. It changes nothing and fetches nothing; use it before a complex change or after surprising output.",
  input: z.object({ thought: z.string().min(1).describe("The thought to record.") }),
  describe: (input) => `Think: ${input.thought.split("\n")[0]!.slice(0, 80)}`,
  async execute(input) {
    return ok("Thought recorded.", { kind: "markdown", text: input.thought });
  },
});
