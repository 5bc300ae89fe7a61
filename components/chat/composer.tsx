"use client";

import { useEffect, useRef, useState, type ReactNode } from "react";

type ComposerProps = {
  running: boolean;
  disabled?: string | null;
  placeholder?: string;
  onSend: (text: string) => Promise<unknown>;
  onStop?: () => void;
  /** Called as the person types (to show others that they are). */
  onType?: () => void;
  footer?: ReactNode;
  autoFocus?: boolean;
};

/** The message box: Enter sends, Shift+Enter starts a new line, Escape stops a running turn. */
export function Composer({ running, disabled, placeholder, onSend, onStop, onType, footer, autoFocus }: ComposerProps) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
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
      await onSend(message);
      setText("");
    } finally {
      setSending(false);
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <textarea
        className="input textarea composer-input"
        rows={3}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          onType?.();
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void send();
          } else if (e.key === "Escape" && running && onStop) {
            e.preventDefault();
            onStop();
          }
        }}
        placeholder={disabled ?? placeholder ?? "Ask the agent… (Enter sends, Shift+Enter for a new line)"}
        disabled={!!disabled}
        aria-label="Message to the agent"
        data-testid="composer-input"
        ref={input}
      />
      <div className="composer-bar">
        {footer}
        <span className="spacer" />
        {running && onStop && (
          <button type="button" className="btn btn-sm" onClick={onStop} data-testid="stop" title="Stop the agent (Escape in the message box)">
            ■ Stop
          </button>
        )}
        <button type="submit" className="btn btn-primary btn-sm" disabled={!text.trim() || sending || !!disabled} data-testid="send">
          Send
        </button>
      </div>
    </form>
  );
}
