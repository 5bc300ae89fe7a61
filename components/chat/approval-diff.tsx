"use client";

// Loaded only in the browser (next/dynamic, ssr: false), like the editor: Monaco from the local package.
import { useState } from "react";
import { createPortal } from "react-dom";
import { ReadOnlyDiff } from "@/components/editor/read-only-diff";
import { Dialog } from "@/components/ui/dialog";

type ApprovalDiffProps = { id: string; path: string; before: string; after: string };

const MAX_HEIGHT = 360;
const MIN_HEIGHT = 40;

/**
 * A read-only inline diff of what an edit will do, as tall as the changed lines it shows (unchanged
 * regions folded), long lines wrapped; "Open in diff editor" shows it side by side, full size.
 * Models live under their own scheme, apart from the editor's files.
 */
export default function ApprovalDiff({ id, path, before, after }: ApprovalDiffProps) {
  const [height, setHeight] = useState<number | null>(null);
  const [expanded, setExpanded] = useState(false);
  return (
    <>
      <div className="approval-diff" style={{ height: height ?? MIN_HEIGHT * 2 }} data-testid="approval-diff">
        <ReadOnlyDiff
          scheme="approval"
          modelKey={`${id}/${path}`}
          original={before}
          modified={after}
          onMount={(diff) => {
            // The inline view lives in the modified editor: its content height counts the removed
            // lines and the folded regions once the diff is computed.
            const editor = diff.getModifiedEditor();
            const fit = () => setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, editor.getContentHeight() + 2)));
            diff.onDidUpdateDiff(fit);
            editor.onDidContentSizeChange(fit);
            // Mounted again (the card scrolled back into view) on models whose diff is already
            // computed: no event comes, so measure now.
            // biome-ignore lint/suspicious/noFocusedTests: fit() measures the editor; this is not a test
            fit();
            requestAnimationFrame(fit);
          }}
          options={{
            fontSize: 12,
            lineNumbersMinChars: 3,
            diffWordWrap: "on",
            renderOverviewRuler: false,
            hideUnchangedRegions: { enabled: true, contextLineCount: 3 },
            scrollbar: { alwaysConsumeMouseWheel: false },
          }}
        />
      </div>
      <div className="approval-diff-actions">
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={() => setExpanded(true)}
          data-testid="approval-diff-open"
        >
          Open in diff editor
        </button>
      </div>
      {/* On the page's body: inside the transcript's moved (transformed) rows a fixed dialog would not cover the page. */}
      {expanded &&
        createPortal(
          <FullDiff id={id} path={path} before={before} after={after} onClose={() => setExpanded(false)} />,
          document.body,
        )}
    </>
  );
}

/** The same change side by side in a large dialog, to read a long or wide edit. */
function FullDiff({ id, path, before, after, onClose }: ApprovalDiffProps & { onClose: () => void }) {
  return (
    <Dialog title={path} onClose={onClose} testId="approval-diff-dialog" wide>
      <div className="diff-labels">
        <span>Now</span>
        <span>After this edit</span>
      </div>
      <div className="approval-diff-full">
        <ReadOnlyDiff
          scheme="approval-full"
          modelKey={`${id}/${path}`}
          original={before}
          modified={after}
          // The whole file, opened at the change.
          onMount={(diff) => {
            // Once the diff is known and the editor has its width: before that, wrapped lines
            // are measured in a zero-width editor and the reveal lands past the end.
            const editor = diff.getModifiedEditor();
            let revealed = false;
            const reveal = () => {
              const first = diff.getLineChanges()?.[0];
              if (revealed || !first || editor.getLayoutInfo().contentWidth < 100) return;
              revealed = true;
              editor.revealLineInCenter(Math.max(1, first.modifiedStartLineNumber));
            };
            diff.onDidUpdateDiff(reveal);
            editor.onDidLayoutChange(reveal);
          }}
          options={{ renderSideBySide: true, scrollBeyondLastLine: true, diffWordWrap: "on" }}
        />
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
