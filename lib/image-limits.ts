// What an image in a session may be (lib/images.ts), without the schemas: the composer, on the
// IDE's first screen, checks a pasted image against these, and the first screen loads no zod
// (docs/ide.md, "Opening a file").

export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_IMAGES_PER_MESSAGE = 8;
