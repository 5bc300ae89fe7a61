"use client";

// Completion in the message box: `/` at the start offers commands, `@` offers files and folders.
// The caller ranks the items for the token being typed; this file finds that token and draws the list.

export type CompletionItem = { key: string; label: string; detail?: string; insert: string };
export type CompletionTrigger = { char: "/" | "@"; query: string; start: number; end: number };

/** The token at the caret that asks for completion, if any. */
export function triggerAt(text: string, caret: number): CompletionTrigger | null {
  const before = text.slice(0, caret);
  const slash = /^\/([\w-]*)$/.exec(before);
  if (slash) return { char: "/", query: slash[1]!, start: 0, end: caret };
  const at = /(^|\s)@([^\s@]*)$/.exec(before);
  if (at) return { char: "@", query: at[2]!, start: caret - at[2]!.length - 1, end: caret };
  return null;
}

export function CompletionList({
  items,
  active,
  onPick,
}: {
  items: CompletionItem[];
  active: number;
  onPick(item: CompletionItem): void;
}) {
  return (
    <ul className="completion" role="listbox" aria-label="Suggestions" data-testid="completion">
      {items.map((item, i) => (
        <li
          key={item.key}
          role="option"
          aria-selected={i === active}
          className={i === active ? "completion-item active" : "completion-item"}
          data-testid="completion-item"
          onMouseDown={(e) => {
            e.preventDefault();
            onPick(item);
          }}
        >
          <span className="completion-label">{item.label}</span>
          {item.detail && <span className="completion-detail">{item.detail}</span>}
        </li>
      ))}
    </ul>
  );
}
