import { z } from "zod";

// The contract of notifications between the server and the browser: the kinds of notification,
// the ways they are delivered, and the chat webhook formats (a person's chat delivery and a
// project's send_message channels speak the same four).

export const NOTIFICATION_KINDS = [
  "approval",
  "question",
  "session_finished",
  "session_failed",
  "mention",
  "invitation",
  "budget",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const KIND_LABELS: Record<NotificationKind, string> = {
  approval: "An agent waits for your approval",
  question: "An agent asks you a question",
  session_finished: "A session you started or took part in finished",
  session_failed: "A session you started or took part in failed or stopped",
  mention: "Someone mentioned you (@name)",
  invitation: "You were invited to a team",
  budget: "A budget you are under is nearly used up",
};

export const DELIVERY_CHANNELS = ["inApp", "browser", "email", "chat"] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

export const CHAT_KINDS = ["slack", "discord", "mattermost", "teams"] as const;
export type ChatKind = (typeof CHAT_KINDS)[number];
export const CHAT_KIND_LABELS: Record<ChatKind, string> = {
  slack: "Slack",
  discord: "Discord",
  mattermost: "Mattermost",
  teams: "Microsoft Teams",
};

const channelsSchema = z.object({
  inApp: z.boolean(),
  browser: z.boolean(),
  email: z.boolean(),
  chat: z.boolean(),
});
export type KindChannels = z.infer<typeof channelsSchema>;
export const deliveryPrefsSchema = z.record(z.enum(NOTIFICATION_KINDS), channelsSchema);
export type DeliveryPrefs = Record<NotificationKind, KindChannels>;

/** What a person gets before they choose: everything in the app and in the browser, nothing sent out. */
export const DEFAULT_CHANNELS: KindChannels = { inApp: true, browser: true, email: false, chat: false };

/** A person's choices, with the defaults for the kinds they never set (stored JSON is parsed leniently). */
export function deliveryPrefs(stored: unknown): DeliveryPrefs {
  const parsed = z.record(z.string(), channelsSchema.partial()).safeParse(stored);
  const given = parsed.success ? parsed.data : {};
  return Object.fromEntries(
    NOTIFICATION_KINDS.map((kind) => [kind, { ...DEFAULT_CHANNELS, ...given[kind] }]),
  ) as DeliveryPrefs;
}

/** A channel's name as the agent's send_message names it. */
export const channelName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "Use 1-40 lowercase letters, digits, - or _ (e.g. team-chat)");

/** A webhook URL as people give it: http or https, no credentials in it (its address is checked when it is sent to). */
export const webhookUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "https:" || url.protocol === "http:") && !url.username && !url.password;
    } catch {
      return false;
    }
  }, "Give the incoming-webhook URL the chat service showed you (https://…)");
