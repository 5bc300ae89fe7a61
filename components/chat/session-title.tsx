"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

/** A session's title, renamed in place (F2 or the pencil, Enter saves, Escape cancels). */
type SessionTitleProps = {
  projectId: string;
  sessionId: string;
  title: string;
  canWrite: boolean;
  onOpen?: () => void;
  children?: React.ReactNode;
};

/** In the session list the title opens the session (`onOpen`); `children` adds details under it. */
export function SessionTitle({ projectId, sessionId, title, canWrite, onOpen, children }: SessionTitleProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(title);
  const rename = useMutation(
    trpc.session.rename.mutationOptions({
      onSuccess: () => {
        setEditing(false);
        void queryClient.invalidateQueries(trpc.session.list.queryFilter({ projectId }));
        void queryClient.invalidateQueries(trpc.session.get.queryFilter({ sessionId }));
      },
    }),
  );

  if (editing) {
    return (
      <form
        className="session-rename"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) rename.mutate({ sessionId, title: value.trim() });
        }}
      >
        <input
          className="input"
          value={value}
          autoFocus
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.stopPropagation();
              setEditing(false);
            }
          }}
          onBlur={() => !rename.isPending && setEditing(false)}
          aria-label="Session title"
          data-testid="session-rename-input"
          maxLength={200}
        />
        {rename.error && <span className="error-text">{errorMessage(rename.error)}</span>}
      </form>
    );
  }
  return (
    <span
      className="session-title"
      data-testid="session-title"
      onKeyDown={(e) => e.key === "F2" && canWrite && (setValue(title), setEditing(true))}
    >
      {onOpen ? (
        <button type="button" className="session-open" onClick={onOpen} data-testid="session-open">
          <span className="session-title-text">{title}</span>
          {children}
        </button>
      ) : (
        <span className="session-title-text" title={title}>
          {title}
        </span>
      )}
      {canWrite && (
        <button
          type="button"
          className="icon-btn"
          onClick={() => {
            setValue(title);
            setEditing(true);
          }}
          aria-label="Rename session"
          title="Rename (F2)"
          data-testid="session-rename"
        >
          ✎
        </button>
      )}
    </span>
  );
}

/** A title from the first message: its first line, cut at a word near 60 characters. */
export function titleFromMessage(text: string): string {
  const line = text.trim().split("\n")[0]!.replace(/\s+/g, " ");
  if (line.length <= 60) return line;
  const cut = line.slice(0, 60);
  return `${cut.slice(0, cut.lastIndexOf(" ") > 30 ? cut.lastIndexOf(" ") : 60)}…`;
}
