"use client";

/** `@` mentions as chips: in the composer (what will be attached) and on a sent message (what was, and whether it could be). */
export function MentionChips({ refs, failed = [] }: { refs: string[]; failed?: string[] }) {
  if (refs.length === 0) return null;
  return (
    <ul className="mention-chips" data-testid="mention-chips">
      {refs.map((ref) => (
        <li
          key={ref}
          className={failed.includes(ref) ? "mention-chip failed" : "mention-chip"}
          data-testid="mention-chip"
          title={failed.includes(ref) ? "Could not be attached" : "Attached with the message"}
        >
          @{ref}
        </li>
      ))}
    </ul>
  );
}
