"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { openSessionHref } from "@/components/settings/open-session";

type Workflow = {
  name: string;
  path: string;
  description: string;
  inputs: { name: string; description?: string; default?: string; required: boolean }[];
};

/** The workspace's workflows (.tandem/workflows/*.yaml), each with a Run button that streams into a new session. */
export function WorkflowsCard({ projectId, canRun }: { projectId: string; canRun: boolean }) {
  const trpc = useTRPC();
  const workflows = useQuery(trpc.extensions.workflows.queryOptions({ projectId }));
  return (
    <section className="card settings-card" data-testid="workflows-card">
      <div className="section-title">
        <h2>Workflows</h2>
        <span className="hint">
          From .tandem/workflows/&lt;name&gt;.yaml: agent prompts, shell commands, parallel groups.
        </span>
      </div>
      {workflows.error && <div className="error-text">{errorMessage(workflows.error)}</div>}
      {workflows.data?.problems.map((p) => (
        <div key={p.path} className="error-text">
          {p.path}: {p.message}
        </div>
      ))}
      {!workflows.data ? (
        <p className="hint">Loading…</p>
      ) : workflows.data.workflows.length === 0 ? (
        <p className="hint">No workflows yet. Add one under .tandem/workflows/.</p>
      ) : (
        <ul className="item-list">
          {workflows.data.workflows.map((w) => (
            <WorkflowRow key={w.name} projectId={projectId} workflow={w} canRun={canRun} />
          ))}
        </ul>
      )}
    </section>
  );
}

function WorkflowRow({ projectId, workflow, canRun }: { projectId: string; workflow: Workflow; canRun: boolean }) {
  const trpc = useTRPC();
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const run = useMutation(trpc.extensions.runWorkflow.mutationOptions());
  const missing = workflow.inputs.some((i) => i.required && !inputs[i.name]?.trim());
  return (
    <li data-testid={`workflow-${workflow.name}`}>
      <div className="item-main">
        <span className="item-title">{workflow.name}</span>
        <span className="item-sub">{workflow.description || workflow.path}</span>
        {workflow.inputs.length > 0 && (
          <div className="inputs-row">
            {workflow.inputs.map((input) => (
              <input
                key={input.name}
                className="input"
                aria-label={input.name}
                title={input.description}
                placeholder={`${input.name}${input.required ? " *" : ""}${input.default ? ` (${input.default})` : ""}`}
                value={inputs[input.name] ?? ""}
                onChange={(e) => setInputs({ ...inputs, [input.name]: e.target.value })}
              />
            ))}
          </div>
        )}
        {run.error && <span className="error-text">{errorMessage(run.error)}</span>}
        {run.data && (
          <span className="item-sub">
            Running in a new session: <Link {...openSessionHref(projectId, run.data.sessionId)}>open it</Link>
          </span>
        )}
      </div>
      {canRun && (
        <button
          type="button"
          className="btn btn-primary btn-sm"
          disabled={missing || run.isPending}
          onClick={() =>
            run.mutate({
              projectId,
              workflow: workflow.name,
              inputs: Object.fromEntries(Object.entries(inputs).filter(([, v]) => v.trim())),
            })
          }
        >
          Run
        </button>
      )}
    </li>
  );
}
