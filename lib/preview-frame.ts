import { z } from "zod";

// Between the IDE and the previews it frames (server/preview/frame-script.ts posts these).

/**
 * The request header through which the server tells the page's Content-Security-Policy (proxy.ts)
 * which origins previews are served on, for its frame-src. The server sets it on every page
 * request, over whatever a client sent.
 */
export const PREVIEW_FRAMES_HEADER = "x-tandem-preview-frames";

/**
 * What a framed preview tells the IDE: a console error, or where it now is. Untrusted (the
 * previewed app can post the same), taken only from the preview's exact origin, shown as text.
 */
export const previewMessageSchema = z.discriminatedUnion("kind", [
  z.object({ tandemPreview: z.literal(1), kind: z.literal("error"), text: z.string().max(4000) }),
  z.object({ tandemPreview: z.literal(1), kind: z.literal("location"), href: z.string().max(4096) }),
]);
export type PreviewMessage = z.infer<typeof previewMessageSchema>;
