"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { ImageRef } from "@/lib/images";
import { useTRPC } from "@/components/trpc-provider";

// Thumbnails of a session's images. The bytes come through the API (session.image, which checks
// that the viewer may see the session) and are shown from a blob: URL made in the page, so no
// image is ever loaded from another origin or by a URL that skips the access check.

export function SessionImages({ sessionId, images }: { sessionId: string; images: ImageRef[] }) {
  return (
    <div className="message-images" data-testid="message-images">
      {images.map((image) => (
        <SessionImage key={image.hash} sessionId={sessionId} image={image} />
      ))}
    </div>
  );
}

function SessionImage({ sessionId, image }: { sessionId: string; image: ImageRef }) {
  const trpc = useTRPC();
  const data = useQuery(trpc.session.image.queryOptions({ sessionId, hash: image.hash }, { staleTime: Infinity }));
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!data.data) return;
    const bytes = Uint8Array.from(atob(data.data.data), (c) => c.charCodeAt(0));
    const made = URL.createObjectURL(new Blob([bytes], { type: data.data.mediaType }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [data.data]);
  const label = `${image.mediaType}, ${Math.max(1, Math.round(image.size / 1024))} KB`;
  if (data.error) return <span className="hint">Image not available ({label})</span>;
  if (!url) return <span className="message-image" role="img" aria-label={`Loading image (${label})`} />;
  return (
    <a href={url} target="_blank" rel="noreferrer" title={label}>
      {/* eslint-disable-next-line @next/next/no-img-element -- a same-origin blob: URL */}
      <img className="message-image" src={url} alt={`Attached: ${label}`} data-testid="message-image" />
    </a>
  );
}
