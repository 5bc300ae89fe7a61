"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Markdown } from "@/components/chat/markdown";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type Note = { id: string; title: string; content: string; updatedAt: Date };

/** The session's notes: written by the agent's `note` tool and by people, shown as markdown. */
export function NotesPanel({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const session = useQuery(trpc.session.get.queryOptions({ sessionId }));
  const [editing, setEditing] = useState<Note | "new" | null>(null);
  const canWrite = session.data?.canWrite ?? false;

  if (session.isPending) return <div className="center-message">Loading…</div>;
  if (session.error) return <div className="center-message">{errorMessage(session.error)}</div>;
  const notes = session.data.notes;

  return (
    <div className="side-panel" data-testid="notes-panel">
      <div className="session-list-head">
        <span
          className="pane-header session-list-title"
          style={{ padding: 0 }}
          title={`Notes · ${session.data.title}`}
          data-testid="notes-title"
        >
          <span>Notes · {session.data.title}</span>
        </span>
        <span className="spacer" />
        {canWrite && editing === null && (
          <button type="button" className="btn btn-sm" onClick={() => setEditing("new")} data-testid="note-new">
            New note
          </button>
        )}
      </div>
      {editing !== null && (
        <NoteEditor sessionId={sessionId} note={editing === "new" ? null : editing} onDone={() => setEditing(null)} />
      )}
      {notes.length === 0 && editing === null ? (
        <div className="empty">No notes yet. The agent keeps plans and findings here; you can add your own.</div>
      ) : (
        notes.map((note) =>
          editing !== "new" && editing?.id === note.id ? null : (
            <article key={note.id} className="note" data-testid="note">
              <header className="row">
                <h3>{note.title}</h3>
                <span className="spacer" />
                <span className="hint">{note.updatedAt.toLocaleString()}</span>
                {canWrite && (
                  <button
                    type="button"
                    className="btn btn-ghost btn-sm"
                    onClick={() => setEditing(note)}
                    data-testid="note-edit"
                  >
                    Edit
                  </button>
                )}
              </header>
              <Markdown text={note.content} />
            </article>
          ),
        )
      )}
    </div>
  );
}

function NoteEditor({ sessionId, note, onDone }: { sessionId: string; note: Note | null; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [title, setTitle] = useState(note?.title ?? "");
  const [content, setContent] = useState(note?.content ?? "");
  const save = useMutation(
    trpc.session.saveNote.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.session.get.queryFilter({ sessionId }));
        onDone();
      },
    }),
  );
  return (
    <form
      className="note note-editor stack"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ sessionId, noteId: note?.id, title: title.trim(), content });
      }}
      onKeyDown={(e) => e.key === "Escape" && onDone()}
    >
      <input
        className="input"
        value={title}
        onChange={(e) => setTitle(e.target.value)}
        placeholder="Title"
        aria-label="Note title"
        autoFocus
        data-testid="note-title"
      />
      <textarea
        className="input textarea"
        rows={10}
        value={content}
        onChange={(e) => setContent(e.target.value)}
        placeholder="Markdown"
        aria-label="Note content"
        data-testid="note-content"
      />
      {save.error && <span className="error-text">{errorMessage(save.error)}</span>}
      <div className="row">
        <button
          type="submit"
          className="btn btn-primary btn-sm"
          disabled={!title.trim() || save.isPending}
          data-testid="note-save"
        >
          Save
        </button>
        <button type="button" className="btn btn-ghost btn-sm" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
