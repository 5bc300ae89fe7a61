"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";
import { PendingImageChips, usePendingImages, type PendingImage } from "@/components/chat/composer-images";
import {
  CompletionList,
  triggerAt,
  type CompletionItem,
  type CompletionTrigger,
} from "@/components/chat/composer-completion";
import { MentionChips } from "@/components/chat/mention-chips";

type ComposerProps = {
  running: boolean;
  disabled?: string | null;
  placeholder?: string;
  /** `images`: pasted or dropped, for the caller to attach to the session before sending. */
  onSend: (text: string, images: PendingImage[]) => Promise<unknown>;
  onStop?: () => void;
  /** Called as the person types (to show others that they are). */
  onType?: () => void;
  footer?: ReactNode;
  autoFocus?: boolean;
  /** Suggestions for the `/command` or `@mention` being typed. */
  complete?: (trigger: CompletionTrigger) => CompletionItem[];
  /** Shown above the box: what a command answered, or why it could not run. */
  notice?: ReactNode;
  /** The `@` mentions in the text, shown as chips. */
  mentionsOf?: (text: string) => string[];
};

/** The message box: Enter sends, Shift+Enter starts a new line, Escape stops a running turn; images paste or drop in. */
export function Composer({
  running,
  disabled,
  placeholder,
  onSend,
  onStop,
  onType,
  footer,
  autoFocus,
  complete,
  notice,
  mentionsOf,
}: ComposerProps) {
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const trigger = complete ? triggerAt(text, caret) : null;
  const items = trigger && dismissed !== `${trigger.start}:${trigger.query}` ? complete!(trigger).slice(0, 50) : [];
  const open = items.length > 0;
  const pick = (item: CompletionItem) => {
    if (!trigger) return;
    const next = text.slice(0, trigger.start) + item.insert + text.slice(trigger.end);
    const at = trigger.start + item.insert.length;
    setText(next);
    setCaret(at);
    setActive(0);
    requestAnimationFrame(() => input.current?.setSelectionRange(at, at));
  };
  const [sending, setSending] = useState(false);
  const [dragging, setDragging] = useState(false);
  const pending = usePendingImages();
  const input = useRef<HTMLTextAreaElement>(null);
  // Focus on mount only when nothing else has it: the panel can appear while someone types a file name.
  useEffect(() => {
    const active = document.activeElement;
    if (autoFocus && (!active || active === document.body)) input.current?.focus();
  }, [autoFocus]);

  const send = async () => {
    const message = text.trim();
    if (!message || sending || disabled) return;
    setSending(true);
    try {
      await onSend(message, pending.images);
      setText("");
      setCaret(0);
      pending.clear();
    } finally {
      setSending(false);
    }
  };

  return (
    <form
      className="composer"
      data-testid="composer"
      data-dragging={dragging || undefined}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => {
        if (disabled || !e.dataTransfer.types.includes("Files")) return;
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        if (disabled || e.dataTransfer.files.length === 0) return;
        e.preventDefault();
        void pending.add([...e.dataTransfer.files]);
      }}
    >
      {open && <CompletionList items={items} active={Math.min(active, items.length - 1)} onPick={pick} />}
      {notice && (
        <div className="composer-notice" role="status" data-testid="composer-notice">
          {notice}
        </div>
      )}
      <PendingImageChips images={pending.images} onRemove={pending.remove} />
      <MentionChips refs={mentionsOf?.(text) ?? []} />
      {pending.problem && (
        <div className="error-text" role="alert" data-testid="composer-image-problem">
          {pending.problem}
        </div>
      )}
      <textarea
        className="input textarea composer-input"
        rows={3}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setCaret(e.target.selectionStart);
          setActive(0);
          onType?.();
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
        onPaste={(e) => {
          const files = [...e.clipboardData.files];
          if (files.some((f) => f.type.startsWith("image/"))) {
            e.preventDefault();
            void pending.add(files);
          }
        }}
        onKeyDown={(e) => {
          if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
            e.preventDefault();
            setActive((i) => (i + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length);
          } else if (
            open &&
            (e.key === "Tab" ||
              (e.key === "Enter" &&
                !e.shiftKey &&
                !e.nativeEvent.isComposing &&
                items[Math.min(active, items.length - 1)]!.insert.trim() !== text.slice(trigger!.start, trigger!.end)))
          ) {
            e.preventDefault();
            pick(items[Math.min(active, items.length - 1)]!);
          } else if (open && e.key === "Escape") {
            e.preventDefault();
            setDismissed(`${trigger!.start}:${trigger!.query}`);
          } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void send();
          } else if (e.key === "Escape" && running && onStop) {
            e.preventDefault();
            onStop();
          }
        }}
        placeholder={
          disabled ?? placeholder ?? "Ask the agent… (Enter sends, Shift+Enter for a new line; paste or drop images)"
        }
        disabled={!!disabled}
        aria-label="Message to the agent"
        data-testid="composer-input"
        ref={input}
      />
      <div className="composer-bar">
        {footer}
        <span className="spacer" />
        {running && onStop && (
          <button
            type="button"
            className="btn btn-sm"
            onClick={onStop}
            data-testid="stop"
            title="Stop the agent (Escape in the message box)"
          >
            ■ Stop
          </button>
        )}
        <button
          type="submit"
          className="btn btn-primary btn-sm"
          disabled={!text.trim() || sending || !!disabled}
          data-testid="send"
        >
          Send
        </button>
      </div>
    </form>
  );
}
