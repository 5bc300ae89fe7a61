"use client";

// Loaded only in the browser (next/dynamic, ssr: false), like the editor: Monaco from the local package.
import * as monaco from "@/components/editor/monaco";
import { useEffect, useRef, useState } from "react";
import { ReadOnlyDiff } from "@/components/editor/read-only-diff";
import { CommentThreads } from "@/components/review/comment-threads";
import type { NewComment, ReviewComment } from "@/components/review/use-review-comments";
import { changeStart, hunkCounts, type HunkWork, type ReviewHunk } from "@/components/review/review-hunks";

const ZONE_HEIGHT = 28;

type ReviewDiffProps = {
  sessionId: string;
  path: string;
  original: string;
  current: string;
  hunks: ReviewHunk[];
  canWrite: boolean;
  busy: boolean;
  working: HunkWork | null;
  /** Why accepting is not possible here (a turn is chosen), or null. */
  acceptBlocked: string | null;
  onAccept: (hunk: ReviewHunk) => void;
  onReject: (hunk: ReviewHunk) => void;
  /** This file's review comments, and who is looking (their own comments can be deleted). */
  comments: ReviewComment[];
  me: string | null;
  canComment: boolean;
  onAddComment: (comment: NewComment) => Promise<unknown>;
  onDeleteComment: (commentId: string) => void;
};

const GUTTER = new Set([
  monaco.editor.MouseTargetType.GUTTER_GLYPH_MARGIN,
  monaco.editor.MouseTargetType.GUTTER_LINE_NUMBERS,
  monaco.editor.MouseTargetType.GUTTER_LINE_DECORATIONS,
]);

/**
 * A file at the review base against the file now, inline and read-only, with a bar above each
 * change: what it is, and Reject / Accept. Each bar sits in the space of an empty view zone, but is
 * drawn in a layer of its own over the editor (placed from the zone's reported position), so it is
 * plain page content: it never scrolls sideways with long lines and clicks reach it directly.
 * Review comments show under their lines the same way; a click in the gutter (or a change's
 * Comment button) opens the box to write one.
 */
export default function ReviewDiff({
  sessionId,
  path,
  original,
  current,
  hunks,
  canWrite,
  busy,
  working,
  acceptBlocked,
  onAccept,
  onReject,
  comments,
  me,
  canComment,
  onAddComment,
  onDeleteComment,
}: ReviewDiffProps) {
  const [draftLine, setDraftLine] = useState<number | null>(null);
  const [diff, setDiff] = useState<monaco.editor.IStandaloneDiffEditor | null>(null);
  const modified = diff?.getModifiedEditor() ?? null;
  // Where in the list the change to keep in view is: after a Reject or an Accept, the change that
  // followed it (now in its place), or the one before it when it was the last.
  const focus = useRef(0);
  // Each hunk's bar: its top in the editor's scrolled content, and the editor's scroll and gutter.
  const [tops, setTops] = useState<Record<number, number>>({});
  const [view, setView] = useState({ scrollTop: 0, contentLeft: 0 });

  useEffect(() => {
    if (!modified) return;
    let ids: string[] = [];
    const place = () =>
      modified.changeViewZones((accessor) => {
        for (const id of ids) accessor.removeZone(id);
        ids = hunks.map((hunk) =>
          accessor.addZone({
            afterLineNumber: Math.max(0, changeStart(hunk) - 1),
            heightInPx: ZONE_HEIGHT,
            ordinal: -1,
            domNode: document.createElement("div"),
            onDomNodeTop: (top) => {
              const absolute = top + modified.getScrollTop();
              setTops((current) =>
                current[hunk.index] === absolute ? current : { ...current, [hunk.index]: absolute },
              );
            },
          }),
        );
      });
    setTops({});
    place();
    const update = () =>
      setView({ scrollTop: modified.getScrollTop(), contentLeft: modified.getLayoutInfo().contentLeft });
    update();
    const listeners = [
      modified.onDidScrollChange(update),
      modified.onDidLayoutChange(update),
      modified.onDidChangeModelContent(place),
    ];
    return () => {
      listeners.forEach((l) => l.dispose());
      modified.changeViewZones((accessor) => ids.forEach((id) => accessor.removeZone(id)));
    };
  }, [modified, hunks]);

  useEffect(() => {
    const target = hunks[Math.min(focus.current, hunks.length - 1)];
    if (!diff || !target) return;
    // The bar sits in a zone after the line before the change, with the removed lines below it:
    // revealing the change's first line would scroll the bar (and what was removed) out above.
    const reveal = () => {
      const editor = diff.getModifiedEditor();
      const start = changeStart(target);
      // One line of what comes before the change shows above its bar.
      editor.setScrollTop(start > 1 ? editor.getTopForLineNumber(start - 1) : 0);
    };
    reveal();
    // The new text is diffed (and its unchanged regions folded) a moment later, which moves the
    // lines: bring the change into view again once that is done.
    const updated = diff.onDidUpdateDiff(() => {
      updated.dispose();
      reveal();
    });
    return () => updated.dispose();
  }, [diff, hunks]);

  useEffect(() => {
    if (!modified || !canComment) return;
    const listener = modified.onMouseDown((event) => {
      const line = event.target.position?.lineNumber;
      if (line && GUTTER.has(event.target.type)) setDraftLine(line);
    });
    return () => listener.dispose();
  }, [modified, canComment]);

  const keepNextInView = (act: (hunk: ReviewHunk) => void) => (hunk: ReviewHunk) => {
    focus.current = Math.max(0, hunks.indexOf(hunk));
    act(hunk);
  };

  return (
    <div className="review-diff" data-testid="review-diff">
      <ReadOnlyDiff
        scheme="review"
        modelKey={`${sessionId}/${path}`}
        original={original}
        modified={current}
        onMount={setDiff}
        options={{
          renderOverviewRuler: true,
          glyphMargin: canComment,
          hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 3 },
        }}
      />
      <div className="hunk-bars" style={{ left: view.contentLeft }}>
        {hunks.map((hunk) =>
          tops[hunk.index] === undefined ? null : (
            <HunkBar
              key={hunk.index}
              hunk={hunk}
              total={hunks.length}
              top={tops[hunk.index]! - view.scrollTop}
              canWrite={canWrite}
              busy={busy}
              working={working?.index === hunk.index ? working.action : null}
              acceptBlocked={acceptBlocked}
              onAccept={keepNextInView(onAccept)}
              onReject={keepNextInView(onReject)}
              onComment={canComment ? () => setDraftLine(changeStart(hunk) || 1) : null}
            />
          ),
        )}
        {modified && (
          <CommentThreads
            editor={modified}
            path={path}
            comments={comments.filter((c) => c.side === "current")}
            draftLine={draftLine}
            onCloseDraft={() => setDraftLine(null)}
            onAdd={onAddComment}
            onDelete={onDeleteComment}
            me={me}
            scrollTop={view.scrollTop}
          />
        )}
      </div>
    </div>
  );
}

type HunkBarProps = {
  hunk: ReviewHunk;
  total: number;
  top: number;
  canWrite: boolean;
  busy: boolean;
  /** This hunk's reject or accept is on its way. */
  working: HunkWork["action"] | null;
  acceptBlocked: string | null;
  onAccept: (hunk: ReviewHunk) => void;
  onReject: (hunk: ReviewHunk) => void;
  onComment: (() => void) | null;
};

function HunkBar({
  hunk,
  total,
  top,
  canWrite,
  busy,
  working,
  acceptBlocked,
  onAccept,
  onReject,
  onComment,
}: HunkBarProps) {
  const { added, removed } = hunkCounts(hunk);
  return (
    <div className="hunk-bar" style={{ top, height: ZONE_HEIGHT - 2 }} data-testid="hunk" data-index={hunk.index}>
      {canWrite && (
        <>
          <button
            type="button"
            className="btn btn-sm"
            disabled={busy}
            onClick={() => onReject(hunk)}
            data-testid="hunk-reject"
            title="Put these lines back as they were"
            aria-busy={working === "reject" || undefined}
          >
            {working === "reject" ? "Rejecting…" : "Reject"}
          </button>
          <button
            type="button"
            className="btn btn-primary btn-sm"
            disabled={busy || acceptBlocked !== null}
            onClick={() => onAccept(hunk)}
            data-testid="hunk-accept"
            title={acceptBlocked ?? "Keep this change"}
            aria-busy={working === "accept" || undefined}
          >
            {working === "accept" ? "Accepting…" : "Accept"}
          </button>
        </>
      )}
      <span className="hunk-label">
        Change {hunk.index + 1} of {total}
      </span>
      <span className="hunk-stats">
        <span className="diff-added">+{added}</span> <span className="diff-removed">−{removed}</span>
      </span>
      {onComment && (
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={onComment}
          data-testid="hunk-comment"
          title="Comment on this change for the agent and the team (or click a line number)"
        >
          Comment
        </button>
      )}
    </div>
  );
}
