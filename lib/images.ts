import { z } from "zod";
import type { IMAGE_MEDIA_TYPES } from "@/lib/image-limits";

// Images in a session: people paste them into the composer, tools read or return them. Events
// carry a reference (the sha256 of the bytes, the media type and the size); the bytes are stored
// once per session (session_image) and loaded when a model request or a thumbnail needs them.

export { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, MAX_IMAGES_PER_MESSAGE } from "@/lib/image-limits";

export const imageHashSchema = z.string().regex(/^[0-9a-f]{64}$/, "an image hash is 64 lowercase hex digits");
export const imageRefSchema = z.object({
  hash: imageHashSchema,
  mediaType: z.string().min(1).max(100),
  size: z.number().int().nonnegative(),
});
export type ImageRef = z.infer<typeof imageRefSchema>;

/** What a model that cannot view images reads in place of one. */
export function imageNote(ref: ImageRef, what = "An image"): string {
  return `[${what} (${ref.mediaType}, ${Math.max(1, Math.round(ref.size / 1024))} KB) is attached here, but the current model cannot view images.]`;
}

/** The placeholder a folded message holds until the image's bytes are loaded (server/agent/images.ts). */
export const IMAGE_PLACEHOLDER_PREFIX = "tandem-image:";

// The four accepted formats by their fixed signatures: a 4-line check where a file-type library
// would bring a stream-sniffing dependency for the same answer.
const SIGNATURES: Record<(typeof IMAGE_MEDIA_TYPES)[number], (b: Uint8Array) => boolean> = {
  "image/png": (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/gif": (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38,
  "image/webp": (b) =>
    b[0] === 0x52 &&
    b[1] === 0x49 &&
    b[2] === 0x46 &&
    b[3] === 0x46 &&
    b[8] === 0x57 &&
    b[9] === 0x45 &&
    b[10] === 0x42 &&
    b[11] === 0x50,
};

/** Whether the bytes start the way an image of that type does. */
export function looksLike(mediaType: (typeof IMAGE_MEDIA_TYPES)[number], bytes: Uint8Array): boolean {
  return SIGNATURES[mediaType](bytes);
}
