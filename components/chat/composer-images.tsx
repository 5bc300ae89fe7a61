"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, MAX_IMAGES_PER_MESSAGE } from "@/lib/image-limits";

// Images pasted or dropped into the composer, held in the page until the message is sent (they
// are uploaded to the session then, with session.attachImage), shown as removable thumbnails.

export type PendingImage = {
  id: string;
  mediaType: (typeof IMAGE_MEDIA_TYPES)[number];
  data: string;
  size: number;
  url: string;
  name: string;
};

function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

export function usePendingImages() {
  const [images, setImages] = useState<PendingImage[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const current = useRef(images);
  current.current = images;
  useEffect(() => () => current.current.forEach((i) => URL.revokeObjectURL(i.url)), []);

  /** Takes the image files among `files`; returns whether there were any (so a paste of text goes on as usual). */
  const add = useCallback(async (files: File[]) => {
    const pictures = files.filter((f) => f.type.startsWith("image/"));
    if (pictures.length === 0) return false;
    const problems: string[] = [];
    const added: PendingImage[] = [];
    for (const file of pictures) {
      if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(file.type))
        problems.push(`${file.name || "The image"}: ${file.type} is not supported (PNG, JPEG, GIF or WebP).`);
      else if (file.size > MAX_IMAGE_BYTES)
        problems.push(`${file.name || "The image"} is over ${MAX_IMAGE_BYTES / 1024 / 1024} MB.`);
      else
        added.push({
          id: crypto.randomUUID(),
          mediaType: file.type as PendingImage["mediaType"],
          data: await base64Of(file),
          size: file.size,
          url: URL.createObjectURL(file),
          name: file.name || "pasted image",
        });
    }
    setImages((list) => {
      const room = MAX_IMAGES_PER_MESSAGE - list.length;
      if (added.length > room) problems.push(`At most ${MAX_IMAGES_PER_MESSAGE} images per message.`);
      added.slice(Math.max(room, 0)).forEach((i) => URL.revokeObjectURL(i.url));
      return [...list, ...added.slice(0, Math.max(room, 0))];
    });
    setProblem(problems.length ? problems.join(" ") : null);
    return true;
  }, []);

  const remove = (id: string) =>
    setImages((list) => {
      list.filter((i) => i.id === id).forEach((i) => URL.revokeObjectURL(i.url));
      return list.filter((i) => i.id !== id);
    });
  const clear = () => {
    images.forEach((i) => URL.revokeObjectURL(i.url));
    setImages([]);
    setProblem(null);
  };
  return { images, problem, add, remove, clear };
}

export function PendingImageChips({ images, onRemove }: { images: PendingImage[]; onRemove(id: string): void }) {
  if (images.length === 0) return null;
  return (
    <ul className="composer-images" data-testid="composer-images">
      {images.map((image) => (
        <li key={image.id} className="composer-image" data-testid="composer-image">
          {/* eslint-disable-next-line @next/next/no-img-element -- a blob: URL of the pasted file */}
          <img src={image.url} alt={image.name} />
          <button
            type="button"
            className="composer-image-remove"
            aria-label={`Remove ${image.name}`}
            onClick={() => onRemove(image.id)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
