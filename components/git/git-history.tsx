"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useGit } from "@/components/git/git-context";
import { useTRPC } from "@/components/trpc-provider";
import { Dialog } from "@/components/ui/dialog";
import { errorMessage } from "@/components/ui/error-message";

/** The branch's log; a commit opens with its message and patch. */
export function GitHistory() {
  const trpc = useTRPC();
  const git = useGit();
  const [open, setOpen] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const log = useQuery(trpc.git.log.queryOptions({ ...git.scope, limit: 100 }, { enabled: open }));
  return (
    <div className="scm-section" data-testid="scm-history">
      <button
        type="button"
        className="scm-section-header scm-toggle"
        onClick={() => setOpen(!open)}
        aria-expanded={open}
        data-testid="scm-history-toggle"
      >
        {open ? "▾" : "▸"} History
      </button>
      {open && (
        <ul>
          {log.data?.length === 0 && <li className="hint scm-row">No commits yet.</li>}
          {log.data?.map((c) => (
            <li
              key={c.oid}
              className="scm-row scm-commit-row"
              onClick={() => setShown(c.oid)}
              title={`${c.oid}\n${c.author} <${c.email}>\n${c.date}`}
              data-testid={`scm-commit-${c.oid.slice(0, 7)}`}
            >
              <span className="scm-name">{c.subject}</span>
              <span className="spacer" />
              <span className="scm-dir">
                {c.author} · {c.oid.slice(0, 7)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {shown && <CommitDialog oid={shown} onClose={() => setShown(null)} />}
    </div>
  );
}

function CommitDialog({ oid, onClose }: { oid: string; onClose: () => void }) {
  const trpc = useTRPC();
  const git = useGit();
  const details = useQuery(trpc.git.commitDetails.queryOptions({ ...git.scope, oid }));
  const commit = details.data?.commit;
  return (
    <Dialog title={commit ? commit.subject : `Commit ${oid.slice(0, 7)}`} onClose={onClose} testId="commit-dialog">
      {details.error && <div className="error-text">{errorMessage(details.error)}</div>}
      {commit && (
        <div className="stack">
          <div className="hint">
            {commit.author} &lt;{commit.email}&gt; · {new Date(commit.date).toLocaleString()} ·{" "}
            <code>{commit.oid.slice(0, 12)}</code>
          </div>
          {commit.body && <pre className="commit-body">{commit.body}</pre>}
          <pre className="commit-patch" data-testid="commit-patch">
            {details.data!.patch.split("\n").map((line, i) => (
              <div
                key={i}
                className={
                  line.startsWith("+") && !line.startsWith("+++")
                    ? "add"
                    : line.startsWith("-") && !line.startsWith("---")
                      ? "del"
                      : line.startsWith("@@")
                        ? "hunk"
                        : undefined
                }
              >
                {line || " "}
              </div>
            ))}
          </pre>
        </div>
      )}
    </Dialog>
  );
}
