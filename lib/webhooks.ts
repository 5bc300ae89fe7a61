import { z } from "zod";
import { branchName } from "@/lib/git-schemas";

// A project's inbound webhook (docs/api.md#inbound-webhook): POST a JSON body to
// /api/hooks/projects/<projectId> with these headers, and a session starts.
//   x-tandem-timestamp: seconds since 1970 (within five minutes of the server's clock);
//   x-tandem-delivery:  a unique id of this delivery (a replayed one starts nothing);
//   x-tandem-signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<delivery>.<body>" under the secret>.

export const WEBHOOK_TIMESTAMP_HEADER = "x-tandem-timestamp";
export const WEBHOOK_DELIVERY_HEADER = "x-tandem-delivery";
export const WEBHOOK_SIGNATURE_HEADER = "x-tandem-signature";
export const WEBHOOK_TOLERANCE_SECONDS = 300;
export const WEBHOOK_MAX_BYTES = 256 * 1024;

export const webhookPath = (projectId: string) => `/api/hooks/projects/${projectId}`;

/** What a delivery asks for: a session titled `title` on a new `branch` (else the main tree), told `prompt`. */
export const webhookPayload = z.object({
  title: z.string().trim().min(1).max(200).optional(),
  prompt: z.string().trim().min(1, "prompt must not be empty").max(100_000),
  branch: branchName.optional(),
  model: z.string().min(3).max(200).optional(),
});
export type WebhookPayload = z.infer<typeof webhookPayload>;
