"use client";

import "@/components/share/share.css";
import type { PresenceEntry } from "@/components/share/use-presence";

const initial = (name: string) => name.trim().slice(0, 1).toUpperCase() || "?";

/** The people watching the session, as avatars (guests from a view link counted together). */
export function PresenceAvatars({ entries, meId }: { entries: PresenceEntry[]; meId: string | null }) {
  const people = entries.filter((e) => !(e.guest && e.userId === null));
  const guests = entries.length - people.length;
  if (entries.length === 0) return null;
  return (
    <div className="presence" data-testid="presence" role="group" aria-label="Watching this session">
      {people.map((p) => (
        <span
          key={p.key}
          className={`presence-avatar${p.typing ? " typing" : ""}`}
          title={`${p.userId === meId ? `${p.name} (you)` : p.name}${p.typing ? " · typing" : " · watching"}`}
          data-testid="presence-avatar"
          data-name={p.name}
        >
          {initial(p.name)}
        </span>
      ))}
      {guests > 0 && (
        <span
          className="presence-avatar guest"
          title={`${guests} guest${guests === 1 ? "" : "s"} watching through a view link`}
          data-testid="presence-guests"
        >
          +{guests}
        </span>
      )}
    </div>
  );
}

/** "Ian is typing…" for everyone but this person. */
export function TypingIndicator({ entries, meId }: { entries: PresenceEntry[]; meId: string | null }) {
  const names = entries.filter((e) => e.typing && e.userId !== meId).map((e) => e.name);
  if (names.length === 0) return <div className="typing-indicator" aria-hidden="true" />;
  const who = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return (
    <div className="typing-indicator" data-testid="typing-indicator" aria-live="polite">
      {who} {names.length === 1 ? "is" : "are"} typing…
    </div>
  );
}
