"use client";

import { useEffect, useState } from "react";
import type { FileBuffers } from "@/components/editor/file-buffers";
import type { LiveDocConnection } from "@/lib/live-doc-connection";

/**
 * A live document as a share link's holder watches it: the shared text as people type, with each
 * person's cursor as a thin bar in their colour (their name on hover). Read-only: nothing here
 * edits, and the server refuses edits from such a connection anyway.
 */
export function LiveFileText({
  path,
  connection,
  buffers,
}: {
  path: string;
  connection: LiveDocConnection;
  buffers: FileBuffers;
}) {
  const [, setTick] = useState(0);
  useEffect(() => {
    const bump = () => setTick((tick) => tick + 1);
    let doc = connection.doc;
    let awareness = connection.awareness;
    const follow = () => {
      doc.on("update", bump);
      awareness.on("change", bump);
    };
    const unfollow = () => {
      doc.off("update", bump);
      awareness.off("change", bump);
    };
    follow();
    // A document started afresh on the server comes as new objects.
    const stopReset = connection.onReset(() => {
      unfollow();
      doc = connection.doc;
      awareness = connection.awareness;
      follow();
      bump();
    });
    return () => {
      stopReset();
      unfollow();
    };
  }, [connection]);

  const text = connection.text.toString();
  const carets = [...connection.peers().values()]
    .map((peer) => ({ ...peer.user, at: buffers.peerHead(path, peer.user.name) }))
    .filter(
      (caret): caret is { name: string; color: string; at: number } => caret.at !== null && caret.at <= text.length,
    )
    .sort((a, b) => a.at - b.at);
  const parts: React.ReactNode[] = [];
  let from = 0;
  for (const caret of carets) {
    parts.push(text.slice(from, caret.at));
    parts.push(
      <span
        key={`${caret.name}-${caret.at}`}
        className="share-caret"
        style={{ borderLeftColor: /^#[0-9a-f]{6}$/i.test(caret.color) ? caret.color : "#888888" }}
        title={caret.name}
        data-testid="share-caret"
        data-name={caret.name}
      />,
    );
    from = caret.at;
  }
  parts.push(text.slice(from));
  return (
    <pre className="share-file-content" data-testid="share-live-text">
      {parts}
    </pre>
  );
}
