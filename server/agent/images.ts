import type { ModelMessage } from "ai";
import { IMAGE_PLACEHOLDER_PREFIX } from "@/lib/images";

// The last step before a model request: image (file) parts folded from the log hold a placeholder
// (lib/model-transcript.ts); here they get their bytes, loaded once per request. An image whose
// bytes are gone (its session row was removed) becomes a note rather than a failed request.

export type ImageLoader = (hashes: string[]) => Promise<Map<string, { data: Uint8Array; mediaType: string }>>;

export async function withImageBytes(messages: ModelMessage[], load: ImageLoader): Promise<ModelMessage[]> {
  const hashes = new Set<string>();
  for (const m of messages) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const part of m.content)
      if (part.type === "file" && typeof part.data === "string" && part.data.startsWith(IMAGE_PLACEHOLDER_PREFIX))
        hashes.add(part.data.slice(IMAGE_PLACEHOLDER_PREFIX.length));
  }
  if (hashes.size === 0) return messages;
  const images = await load([...hashes]);
  return messages.map((m) => {
    if (m.role !== "user" || typeof m.content === "string") return m;
    return {
      ...m,
      content: m.content.map((part) => {
        if (part.type !== "file" || typeof part.data !== "string" || !part.data.startsWith(IMAGE_PLACEHOLDER_PREFIX))
          return part;
        const found = images.get(part.data.slice(IMAGE_PLACEHOLDER_PREFIX.length));
        return found
          ? { type: "file" as const, data: found.data, mediaType: found.mediaType }
          : { type: "text" as const, text: "[An image that is no longer stored.]" };
      }),
    };
  });
}
