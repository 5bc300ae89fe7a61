"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

const EXAMPLE = `{
  "go": { "command": ["gopls"], "files": ["*.go"] },
  "rust": { "command": ["rust-analyzer"], "files": ["*.rs"] }
}`;

/** Language servers the project adds by command and file globs; the agent's code tools use them as the built-in ones. */
export function LanguageServersCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.extensions.settings.queryOptions({ projectId }));
  const [draft, setDraft] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const stored = settings.data?.languageServersText ?? "{}";
  const text = draft ?? (stored === "{}" ? "" : stored);
  const save = useMutation(
    trpc.extensions.updateSettings.mutationOptions({
      onSuccess: (result) => {
        if (!result.ok) return setProblem(result.problems.map((p) => p.message).join("; "));
        setProblem(null);
        setDraft(null);
        void queryClient.invalidateQueries(trpc.extensions.settings.queryFilter());
      },
      onError: (e) => setProblem(errorMessage(e)),
    }),
  );

  return (
    <section className="card settings-card" data-testid="language-servers-card">
      <div className="section-title">
        <h2>Language servers</h2>
        <span className="hint">
          Added beside the built-in ones: a command (run in the sandbox, without network) and the files it serves. The
          agent gets their diagnostics, symbols and navigation.
        </span>
      </div>
      <textarea
        className="input setup-script"
        data-testid="language-servers-text"
        value={text}
        readOnly={!canEdit}
        placeholder={EXAMPLE}
        spellCheck={false}
        onChange={(e) => setDraft(e.target.value)}
      />
      {problem && (
        <div className="error-text" role="alert">
          {problem}
        </div>
      )}
      {canEdit && (
        <div className="row">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="save-language-servers"
            disabled={draft === null || save.isPending}
            onClick={() => save.mutate({ projectId, languageServersText: text })}
          >
            Save
          </button>
        </div>
      )}
    </section>
  );
}
