"use client";

import { useState, type ReactNode } from "react";

/** A secret link shown once, right after it is made: read-only, selected on focus, with a Copy button. */
export function ShownOnceLink({ message, url, testId }: { message: ReactNode; url: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="notice stack" style={{ gap: 6 }}>
      <span>{message}</span>
      <div className="invite-link">
        <input className="input" readOnly value={url} onFocus={(event) => event.target.select()} data-testid={testId} />
        <button
          className="btn"
          type="button"
          onClick={() => void navigator.clipboard?.writeText(url).then(() => setCopied(true))}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
  );
}
