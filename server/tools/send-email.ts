import { z } from "zod";
import { defineTool } from "./define-tool";
import { ok } from "./result";

// send_email: registered only when the server has SMTP configured; every call asks a person,
// who sees the whole message (recipients, subject, body) in the approval card.

export type MailSender = {
  from: string;
  send(message: { to: string[]; subject: string; body: string }): Promise<{ messageId: string }>;
};

// Made once: the tool is made anew for each turn, its schema (and the model's JSON schema of it) is not.
const EMAIL_INPUT = z.object({
  to: z.union([z.email(), z.array(z.email()).min(1).max(20)]).describe("Recipient address, or a list of them."),
  subject: z.string().min(1).max(200),
  body: z.string().min(1).max(50_000).describe("Plain text."),
});

export function sendEmailTool(mail: MailSender) {
  return defineTool({
    name: "send_email",
    kind: "execute",
    approval: "always",
    description:
      `Send a plain-text email from ${mail.from}. A person approves every message before it goes, seeing it in full; ` +
      "write it so it can be read without this conversation.",
    input: EMAIL_INPUT,
    describe: (i) => `Email ${[i.to].flat().join(", ")}: ${i.subject}`,
    async execute(i) {
      const to = [i.to].flat();
      const { messageId } = await mail.send({ to, subject: i.subject, body: i.body });
      return ok(`Sent to ${to.join(", ")} (message id ${messageId}).`, {
        kind: "markdown",
        text: `**To:** ${to.join(", ")}\n\n**Subject:** ${i.subject}\n\n${i.body}`,
      });
    },
  });
}
