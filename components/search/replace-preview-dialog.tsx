"use client";

import { useQuery } from "@tanstack/react-query";
import { DiffView } from "@/components/chat/diff-view";
import { useTRPC } from "@/components/trpc-provider";
import { Dialog } from "@/components/ui/dialog";
import { errorMessage } from "@/components/ui/error-message";
import type { FindQueryInput, MatchRef } from "@/lib/search-schemas";
import { useTreeInput } from "@/components/ui/tree-context";

type Props = {
  projectId: string;
  query: FindQueryInput;
  replacement: string;
  path: string;
  matches: MatchRef[];
  onReplace(): void;
  onClose(): void;
};

/** One file's replacement as a diff, computed by the server from the file as it is now. */
export function ReplacePreviewDialog({ projectId, query, replacement, path, matches, onReplace, onClose }: Props) {
  const trpc = useTRPC();
  const preview = useQuery(
    trpc.search.previewReplace.queryOptions(
      { projectId, ...useTreeInput(), query, replacement, path, matches },
      { gcTime: 0, staleTime: 0 },
    ),
  );
  return (
    <Dialog title={`Replace in ${path}`} onClose={onClose} testId="replace-preview">
      <div className="replace-preview-body">
        {preview.isPending ? (
          <p className="muted">Computing the change…</p>
        ) : preview.error ? (
          <div className="error-text">{errorMessage(preview.error)}</div>
        ) : (
          <>
            {preview.data.missing > 0 && (
              <div className="banner banner-warning">
                <span className="banner-text">
                  The file changed since the search: {preview.data.missing} of the matches are gone. Search again before
                  replacing.
                </span>
              </div>
            )}
            <DiffView files={[preview.data]} />
          </>
        )}
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={!preview.data || preview.data.missing > 0}
          onClick={onReplace}
          data-testid="replace-preview-confirm"
        >
          Replace in this file
        </button>
      </div>
    </Dialog>
  );
}
