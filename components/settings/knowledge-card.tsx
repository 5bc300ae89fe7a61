"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";

/** How search_knowledge_base ranks this project's passages: full-text alone, or by meaning too, and why not. */
export function KnowledgeCard({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.extensions.settings.queryOptions({ projectId }, { refetchInterval: 5_000 }));
  if (!settings.data) return null;
  const status = settings.data.knowledge;
  return (
    <section className="card settings-card" data-testid="knowledge-card">
      <div className="section-title">
        <h2>Knowledge search</h2>
        <span className="hint">How the agent&apos;s search_knowledge_base ranks the workspace&apos;s passages.</span>
      </div>
      {!status ? (
        <p className="hint">Full-text ranking. Set TANDEM_EMBEDDING_MODEL on the server to rank by meaning too.</p>
      ) : (
        <>
          <p data-testid="knowledge-semantic">
            Full-text and semantic ranking with <code>{status.model}</code> (
            {status.backend === "pgvector" ? "pgvector" : "in-process index"}): {status.embedded} passage
            {status.embedded === 1 ? "" : "s"} embedded{status.pending ? `, ${status.pending} waiting` : ""}.
          </p>
          {status.error && (
            <p className="error-text" data-testid="knowledge-error">
              Embedding fails: {status.error}. Until it works, waiting passages are ranked by full-text search alone.
            </p>
          )}
        </>
      )}
    </section>
  );
}
