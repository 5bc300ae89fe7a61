import { z } from "zod";
import { defineTool } from "./define-tool";
import { failure, ok } from "./result";

// send_message: a message to one of the chat channels the project's maintainers configured (Slack,
// Discord, Mattermost, Microsoft Teams incoming webhooks). The model names a channel, never a URL:
// the URLs stay on the server. Registered only for a project with channels; an "execute" call, so
// the approval policy decides (it asks in "ask" and "auto-edit" modes) and people see the message
// in full before it goes.

export type ProjectChannels = {
  /** The project's channel names (what the model may name). */
  names(projectId: string): Promise<string[]>;
  /** Posts `text` to the channel; throws with a message the model can act on. */
  send(projectId: string, channel: string, text: string): Promise<{ kind: string }>;
};

export function sendMessageTool(channels: ProjectChannels, names: readonly string[]) {
  return defineTool({
    name: "send_message",
    kind: "execute",
    description:
      `Send a chat message to one of this project's channels: ${names.join(", ")}. ` +
      "Write it so the channel's readers understand it without this conversation; plain text or light Markdown.",
    input: z.object({
      channel: z
        .string()
        .min(1)
        .max(40)
        .describe(`The channel's name, one of: ${names.join(", ")}.`),
      text: z.string().min(1).max(3000),
    }),
    describe: (i) => `Message #${i.channel}: ${i.text.split("\n")[0]!.slice(0, 80)}`,
    async execute(i, ctx) {
      const known = await channels.names(ctx.projectId);
      if (!known.includes(i.channel))
        return failure(
          "NOT_FOUND",
          `This project has no channel '${i.channel}'. Its channels: ${known.join(", ") || "none"}.`,
        );
      try {
        const sent = await channels.send(ctx.projectId, i.channel, i.text);
        return ok(`Sent to #${i.channel} (${sent.kind}).`, {
          kind: "markdown",
          text: `**#${i.channel}**\n\n${i.text}`,
        });
      } catch (error) {
        return failure("FETCH_FAILED", `The message did not reach #${i.channel}: ${(error as Error).message}`);
      }
    },
  });
}
