import { request } from "undici";
import type { ChatKind } from "@/lib/notifications";
import { blockedAddressOf, guardedDispatcher, type Resolver } from "@/server/tools/guarded-fetch";

// Posting to a chat service's incoming webhook (Slack, Discord, Mattermost, Microsoft Teams): a
// person's notifications and a project's send_message channels. The URL came from a person, so the
// post is the server's own request on their behalf: it goes through web_fetch's address guard
// (loopback, private, link-local and metadata addresses refused, checked on the address actually
// connected to), follows no redirects, and has a time limit. `allowHosts` is the server's own
// exemption (tests reach receivers on loopback with it); people and the model never set it.

export type ChatMessage = { title: string; text: string; link?: string };
export type ChatPost = { allowHosts: readonly string[]; resolve?: Resolver; timeoutMs?: number };

export class ChatDeliveryError extends Error {}

const LIMITS: Record<ChatKind, number> = { slack: 3500, mattermost: 3500, discord: 1900, teams: 3500 };

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The JSON body each service's incoming webhook takes. */
export function chatPayload(kind: ChatKind, message: ChatMessage): object {
  const link = message.link ? `\n${message.link}` : "";
  switch (kind) {
    case "slack":
      return {
        text: cut(
          `*${message.title}*\n${message.text}${message.link ? `\n<${message.link}|Open in Tandem>` : ""}`,
          LIMITS.slack,
        ),
      };
    case "mattermost":
      return {
        username: "Tandem",
        text: cut(
          `**${message.title}**\n${message.text}${message.link ? `\n[Open in Tandem](${message.link})` : ""}`,
          LIMITS.mattermost,
        ),
      };
    case "discord":
      return {
        username: "Tandem",
        content: cut(`**${message.title}**\n${message.text}${link}`, LIMITS.discord),
        allowed_mentions: { parse: [] },
      };
    case "teams":
      // An Adaptive Card in a message: what Teams' incoming webhooks (Workflows) take.
      return {
        type: "message",
        attachments: [
          {
            contentType: "application/vnd.microsoft.card.adaptive",
            content: {
              $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
              type: "AdaptiveCard",
              version: "1.4",
              body: [
                { type: "TextBlock", text: cut(message.title, 200), weight: "Bolder", wrap: true },
                { type: "TextBlock", text: cut(message.text, LIMITS.teams), wrap: true },
              ],
              ...(message.link
                ? { actions: [{ type: "Action.OpenUrl", title: "Open in Tandem", url: message.link }] }
                : {}),
            },
          },
        ],
      };
  }
}

/** Posts the message; throws ChatDeliveryError with what went wrong (refused address, status, timeout). */
export async function postChat(kind: ChatKind, url: string, message: ChatMessage, options: ChatPost): Promise<void> {
  const target = new URL(url);
  if ((target.protocol !== "https:" && target.protocol !== "http:") || target.username || target.password)
    throw new ChatDeliveryError("The webhook URL must be http(s) without credentials in it.");
  try {
    const response = await request(target, {
      method: "POST",
      dispatcher: guardedDispatcher(options.allowHosts, options.resolve),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      headers: { "content-type": "application/json", "user-agent": "Tandem/1.0 (notifications)" },
      body: JSON.stringify(chatPayload(kind, message)),
    });
    const answer = (await response.body.text()).slice(0, 200);
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new ChatDeliveryError(
        `The ${target.host} webhook answered ${response.statusCode}${answer ? `: ${answer}` : ""}.`,
      );
  } catch (error) {
    if (error instanceof ChatDeliveryError) throw error;
    const refused = blockedAddressOf(error);
    if (refused)
      throw new ChatDeliveryError(
        `'${refused.host}' is ${refused.address}, a ${refused.why} address: webhooks go only to public internet addresses.`,
      );
    throw new ChatDeliveryError(`Could not reach the ${target.host} webhook: ${(error as Error).message}`);
  }
}
