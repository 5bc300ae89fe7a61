"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useTRPC } from "@/components/trpc-provider";
import { errorCode } from "@/components/ui/error-message";
import { applyEdits, type PlannedChange } from "@/components/chat/tool-display";
import { relativePath } from "@/components/editor/open-tabs";

const ApprovalDiff = dynamic(() => import("@/components/chat/approval-diff"), {
  ssr: false,
  loading: () => <div className="center-message">Loading diff…</div>,
});

/**
 * The diff an edit or write will make, against the file as it is now in the session's own tree (a
 * branch session's worktree, else the main tree): the edit is applied here as the tool applies an
 * exact match. When the text to replace is not in the file as-is, the tool
 * will refuse the call; the card then shows the change alone and says so.
 */
export function EditPreview({
  projectId,
  sessionId,
  approvalId,
  change,
}: {
  projectId: string;
  sessionId: string;
  approvalId: string;
  change: PlannedChange;
}) {
  const trpc = useTRPC();
  const path = relativePath(change.path);
  // The session view has read it already; a child session works in its parent's tree.
  const session = useQuery(trpc.session.get.queryOptions({ sessionId }));
  const tree = session.data?.treeId ? { tree: session.data.treeId } : {};
  const file = useQuery(
    trpc.fs.read.queryOptions(
      { projectId, path, ...tree },
      { enabled: !!session.data, retry: false, staleTime: Infinity },
    ),
  );
  if (session.isError) return <div className="hint">Could not read {path} to show the change.</div>;
  if (file.isPending) return <div className="hint">Reading {path}…</div>;

  const missing = file.isError && errorCode(file.error) === "NOT_FOUND";
  if (file.isError && !missing) return <div className="hint">Could not read {path} to show the change.</div>;
  if (file.data?.kind === "binary") return <div className="hint">{path} is a binary file.</div>;

  const current = file.data?.kind === "text" ? file.data.content : "";
  let before = current;
  let after: string | null = "content" in change ? change.content : applyEdits(current, change.edits);
  let note: string | null = missing ? "New file." : null;
  if (after === null && "edits" in change) {
    before = change.edits.map((e) => e.old_string).join("\n…\n");
    after = change.edits.map((e) => e.new_string).join("\n…\n");
    note =
      "The text to replace is not in the file as it is now, so this call will fail; here is the change it asks for.";
  }
  return (
    <div className="edit-preview">
      <div className="edit-preview-path">
        <span className="diff-path">{path}</span>
        {note && <span className="hint">{note}</span>}
      </div>
      <ApprovalDiff id={approvalId} path={path} before={before} after={after ?? ""} />
    </div>
  );
}
