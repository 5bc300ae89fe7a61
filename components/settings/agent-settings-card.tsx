"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { formatRules, parseRulesText, type ParsedRules } from "@/lib/policy-rules-text";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { toolDisplayName } from "@/lib/tool-call-shapes";

const MODES = [
  { value: "ask", label: "Ask", hint: "Reads run freely; edits, commands and fetches ask first." },
  { value: "auto-edit", label: "Auto-edit", hint: "Edits and writes run; commands and fetches ask." },
  { value: "yolo", label: "YOLO", hint: "Nothing asks, except deny rules and the destructive-command guard." },
] as const;
type Mode = (typeof MODES)[number]["value"];

type Draft = {
  mode: Mode;
  allow: string;
  deny: string;
  excluded: string[];
  stepLimit: string;
  loopGuard: string;
  deferOver: string;
};

const STEP_LIMIT = { min: 1, max: 500 };
const LOOP_GUARD = { min: 2, max: 50 };
const DEFER_OVER = { min: 0, max: 1000 };

function numberProblem(value: string, range: { min: number; max: number }): string | null {
  if (!/^\d+$/.test(value.trim())) return "a whole number";
  const n = Number(value);
  return n < range.min || n > range.max ? `between ${range.min} and ${range.max}` : null;
}

/** The project's agent: approval mode, allow and deny rules, built-in tools on or off, the loop's limits. */
export function AgentSettingsCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.agent.settings.queryOptions({ projectId }));
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saved, setSaved] = useState(false);
  const data = settings.data;
  const stored: Draft | null = useMemo(
    () =>
      data
        ? {
            mode: data.approvalMode,
            allow: formatRules(data.allowRules),
            deny: formatRules(data.denyRules),
            excluded: data.excludeTools,
            stepLimit: String(data.stepLimit),
            loopGuard: String(data.loopGuardRepeats),
            deferOver: String(data.deferToolsOver),
          }
        : null,
    [data],
  );
  const current = draft ?? stored;
  const allow = useMemo(() => parseRulesText(current?.allow ?? ""), [current?.allow]);
  const deny = useMemo(() => parseRulesText(current?.deny ?? ""), [current?.deny]);
  const save = useMutation(
    trpc.agent.updateSettings.mutationOptions({
      onSuccess: () => {
        setDraft(null);
        setSaved(true);
        void queryClient.invalidateQueries(trpc.agent.settings.queryFilter());
      },
    }),
  );
  useEffect(() => {
    if (draft) setSaved(false);
  }, [draft]);

  if (settings.error) return <div className="notice notice-error">{errorMessage(settings.error)}</div>;
  if (!data || !current) return <p className="hint">Loading agent settings…</p>;
  const edit = (patch: Partial<Draft>) => setDraft({ ...current, ...patch });
  const stepProblem = numberProblem(current.stepLimit, STEP_LIMIT);
  const loopProblem = numberProblem(current.loopGuard, LOOP_GUARD);
  const deferProblem = numberProblem(current.deferOver, DEFER_OVER);
  const valid = allow.ok && deny.ok && !stepProblem && !loopProblem && !deferProblem;

  const submit = () => {
    if (!allow.ok || !deny.ok) return;
    save.mutate({
      projectId,
      approvalMode: current.mode,
      allowRules: allow.rules,
      denyRules: deny.rules,
      excludeTools: current.excluded,
      stepLimit: Number(current.stepLimit),
      loopGuardRepeats: Number(current.loopGuard),
      deferToolsOver: Number(current.deferOver),
    });
  };

  return (
    <section className="card settings-card" data-testid="agent-settings-card">
      <div className="section-title">
        <h2>Agent</h2>
        <span className="hint">
          {canEdit ? "Applies to the next turn of every session in this project." : "Only project admins change these."}
        </span>
      </div>

      <fieldset className="mode-choice" disabled={!canEdit}>
        <legend>Approval mode</legend>
        {MODES.map((m) => (
          <label key={m.value} className="mode-option" data-checked={current.mode === m.value}>
            <input
              type="radio"
              name="approval-mode"
              value={m.value}
              checked={current.mode === m.value}
              onChange={() => edit({ mode: m.value })}
              data-testid={`mode-${m.value}`}
            />
            <span className="mode-label">{m.label}</span>
            <span className="hint">{m.hint}</span>
          </label>
        ))}
      </fieldset>

      <div className="command-fields">
        <RulesField
          label="Allow rules (run without asking)"
          testId="allow-rules"
          value={current.allow}
          parsed={allow}
          readOnly={!canEdit}
          onChange={(allow) => edit({ allow })}
        />
        <RulesField
          label="Deny rules (never run, in every mode)"
          testId="deny-rules"
          value={current.deny}
          parsed={deny}
          readOnly={!canEdit}
          onChange={(deny) => edit({ deny })}
        />
      </div>
      <p className="hint">
        One rule per line: a tool name (<code>web_fetch</code>, <code>*</code>) or a tool and a command prefix (
        <code>shell: npm test</code>).
      </p>

      <fieldset className="tool-switches" disabled={!canEdit} data-testid="tool-switches">
        <legend>Built-in tools</legend>
        <p className="hint">A tool that is off is not offered to the agent at all.</p>
        <ul className="item-list">
          {data.tools.map((tool) => {
            const on = !current.excluded.includes(tool.name);
            return (
              <li key={tool.name}>
                <label className="tool-switch">
                  <input
                    type="checkbox"
                    checked={on}
                    data-testid={`tool-${tool.name}`}
                    onChange={() =>
                      edit({
                        excluded: on
                          ? [...current.excluded, tool.name]
                          : current.excluded.filter((n) => n !== tool.name),
                      })
                    }
                  />
                  <span className="server-name" title={tool.name}>
                    {toolDisplayName(tool.name)}
                  </span>
                  <span className="chip">{tool.kind}</span>
                  <span className="item-sub">{tool.summary}</span>
                </label>
              </li>
            );
          })}
        </ul>
      </fieldset>

      <div className="command-fields">
        <label className="field">
          <span>
            Step limit per turn ({STEP_LIMIT.min}–{STEP_LIMIT.max})
          </span>
          <input
            className="input"
            inputMode="numeric"
            data-testid="step-limit"
            aria-invalid={!!stepProblem}
            value={current.stepLimit}
            readOnly={!canEdit}
            onChange={(e) => edit({ stepLimit: e.target.value })}
          />
          {stepProblem && <span className="error-text">Step limit: {stepProblem}.</span>}
        </label>
        <label className="field">
          <span>
            Loop guard: warn when the same call gets the same result this many times in a row, stop at twice that (
            {LOOP_GUARD.min}–{LOOP_GUARD.max})
          </span>
          <input
            className="input"
            inputMode="numeric"
            data-testid="loop-guard"
            aria-invalid={!!loopProblem}
            value={current.loopGuard}
            readOnly={!canEdit}
            onChange={(e) => edit({ loopGuard: e.target.value })}
          />
          {loopProblem && <span className="error-text">Loop guard: {loopProblem}.</span>}
        </label>
        <label className="field">
          <span>Defer MCP and project tools behind tool_search past this many</span>
          <input
            className="input"
            inputMode="numeric"
            data-testid="defer-over"
            aria-invalid={!!deferProblem}
            value={current.deferOver}
            readOnly={!canEdit}
            onChange={(e) => edit({ deferOver: e.target.value })}
          />
          {deferProblem && <span className="error-text">Deferral threshold: {deferProblem}.</span>}
        </label>
      </div>

      {save.error && (
        <div className="error-text" role="alert">
          {errorMessage(save.error)}
        </div>
      )}
      {canEdit && (
        <div className="row">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="agent-settings-save"
            disabled={!valid || draft === null || save.isPending}
            onClick={submit}
          >
            {save.isPending ? "Saving…" : "Save"}
          </button>
          {draft !== null && (
            <button type="button" className="btn btn-ghost" onClick={() => setDraft(null)}>
              Discard changes
            </button>
          )}
          {saved && (
            <span className="hint" data-testid="agent-settings-saved">
              Saved.
            </span>
          )}
        </div>
      )}
    </section>
  );
}

function RulesField(props: {
  label: string;
  testId: string;
  value: string;
  parsed: ParsedRules;
  readOnly: boolean;
  onChange(value: string): void;
}) {
  const { parsed } = props;
  return (
    <label className="field">
      <span>{props.label}</span>
      <textarea
        className="json-editor rules-editor"
        spellCheck={false}
        data-testid={props.testId}
        aria-invalid={!parsed.ok}
        value={props.value}
        readOnly={props.readOnly}
        placeholder={props.readOnly ? "(none)" : "shell: npm test"}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {!parsed.ok && (
        <ul className="problems" role="alert" data-testid={`${props.testId}-problems`}>
          {parsed.problems.map((p, i) => (
            <li key={i}>
              {p.line > 0 ? `Line ${p.line}: ` : ""}
              {p.message}
            </li>
          ))}
        </ul>
      )}
    </label>
  );
}
