"use client";

// Loaded with the review's diff, only in the browser (next/dynamic, ssr: false).
import type * as monaco from "@/components/editor/monaco";
import { useEffect, useState, type KeyboardEvent } from "react";
import type { NewComment, ReviewComment } from "@/components/review/use-review-comments";

/** Roughly how tall a comment's text runs, so its zone leaves the room it needs. */
function cardHeight(comment: ReviewComment): number {
  const lines = comment.body.split("\n").reduce((n, line) => n + Math.max(1, Math.ceil(line.length / 90)), 0);
  return 34 + Math.min(lines, 12) * 18;
}
const COMPOSER_HEIGHT = 112;

type Props = {
  editor: monaco.editor.ICodeEditor;
  path: string;
  /** This file's comments on the file as it is now. */
  comments: ReviewComment[];
  /** The line a new comment is being written on, or null. */
  draftLine: number | null;
  onCloseDraft: () => void;
  onAdd: (comment: NewComment) => Promise<unknown>;
  onDelete: (commentId: string) => void;
  me: string | null;
  /** The editor's scroll, to place the cards over their zones. */
  scrollTop: number;
};

/**
 * Comment threads under their lines of the review's diff, and the box a new comment is written in.
 * As with the hunk bars, each sits in the space of an empty view zone and is drawn in the layer
 * over the editor, so it takes clicks and keys as plain page content.
 */
export function CommentThreads({
  editor,
  path,
  comments,
  draftLine,
  onCloseDraft,
  onAdd,
  onDelete,
  me,
  scrollTop,
}: Props) {
  const [tops, setTops] = useState<Record<string, number>>({});

  useEffect(() => {
    let ids: string[] = [];
    // Placed again when the file's text changes under them (the agent edited it): a whole new text
    // would otherwise leave the zones where the old lines were.
    const place = () => {
      const lines = editor.getModel()?.getLineCount() ?? 0;
      const zones: Array<{ key: string; line: number; height: number }> = [];
      for (const comment of comments)
        if (comment.line <= lines) zones.push({ key: comment.id, line: comment.line, height: cardHeight(comment) });
      if (draftLine !== null) zones.push({ key: "draft", line: draftLine, height: COMPOSER_HEIGHT });
      editor.changeViewZones((accessor) => {
        for (const id of ids) accessor.removeZone(id);
        ids = zones.map((zone) =>
          accessor.addZone({
            afterLineNumber: zone.line,
            heightInPx: zone.height,
            domNode: document.createElement("div"),
            onDomNodeTop: (top) => {
              const absolute = top + editor.getScrollTop();
              setTops((current) => (current[zone.key] === absolute ? current : { ...current, [zone.key]: absolute }));
            },
          }),
        );
      });
    };
    place();
    const listener = editor.onDidChangeModelContent(place);
    return () => {
      listener.dispose();
      editor.changeViewZones((accessor) => ids.forEach((id) => accessor.removeZone(id)));
    };
  }, [editor, comments, draftLine]);

  return (
    <>
      {comments.map((comment) =>
        tops[comment.id] === undefined ? null : (
          <div
            key={comment.id}
            className={`review-comment${comment.addressedAt ? " addressed" : ""}`}
            style={{ top: tops[comment.id]! - scrollTop, height: cardHeight(comment) - 4 }}
            data-testid="review-comment"
            data-line={comment.line}
            data-state={comment.addressedAt ? "addressed" : comment.sentAt ? "sent" : "open"}
          >
            <div className="review-comment-head">
              <strong>{comment.authorName ?? "Someone"}</strong>
              <span className="muted">line {comment.line}</span>
              <span
                className={`review-comment-state ${comment.addressedAt ? "addressed" : comment.sentAt ? "sent" : "open"}`}
              >
                {comment.addressedAt ? "Addressed" : comment.sentAt ? "Sent to the agent" : "Open"}
              </span>
              <span className="spacer" />
              {comment.authorId === me && !comment.sentAt && (
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  onClick={() => onDelete(comment.id)}
                  title="Delete this comment"
                >
                  Delete
                </button>
              )}
            </div>
            <div className="review-comment-body">{comment.body}</div>
          </div>
        ),
      )}
      {draftLine !== null && tops.draft !== undefined && (
        <CommentComposer
          key={`${path}:${draftLine}`}
          top={tops.draft - scrollTop}
          line={draftLine}
          onCancel={onCloseDraft}
          onSubmit={async (body) => {
            await onAdd({ path, line: draftLine, side: "current", body });
            onCloseDraft();
          }}
        />
      )}
    </>
  );
}

function CommentComposer({
  top,
  line,
  onCancel,
  onSubmit,
}: {
  top: number;
  line: number;
  onCancel: () => void;
  onSubmit: (body: string) => Promise<void>;
}) {
  const [body, setBody] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    if (!body.trim() || busy) return;
    setBusy(true);
    await onSubmit(body.trim()).catch(() => setBusy(false));
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === "Escape") onCancel();
    else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) void submit();
  };
  return (
    <div
      className="review-comment composer"
      style={{ top, height: COMPOSER_HEIGHT - 4 }}
      data-testid="comment-composer"
    >
      <textarea
        autoFocus
        value={body}
        onChange={(e) => setBody(e.target.value)}
        onKeyDown={onKey}
        placeholder={`Comment on line ${line} for the agent and the team (Ctrl+Enter)`}
        aria-label={`Comment on line ${line}`}
        data-testid="comment-input"
      />
      <div className="review-comment-actions">
        <button type="button" className="btn btn-sm" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="btn btn-primary btn-sm"
          disabled={!body.trim() || busy}
          onClick={() => void submit()}
          data-testid="comment-submit"
        >
          {busy ? "Commenting…" : "Comment"}
        </button>
      </div>
    </div>
  );
}
