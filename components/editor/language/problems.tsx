"use client";

import { useState } from "react";
import { useLanguageSession, useProblems } from "@/components/editor/language/language-session";

const ICON = { error: "⊗", warning: "⚠", info: "ⓘ", hint: "ⓘ" } as const;

/**
 * The status bar's problem counts; a click opens the Problems panel: every error and warning the
 * project's language servers reported (the same set the counts add up), and a click on one opens
 * its file at the spot.
 */
export function ProblemsStatus() {
  const session = useLanguageSession();
  const problems = useProblems();
  const [open, setOpen] = useState(false);
  if (!session) return null;
  const errors = problems.filter((p) => p.severity === "error").length;
  const warnings = problems.filter((p) => p.severity === "warning").length;
  return (
    <>
      <button
        type="button"
        className="statusbar-button"
        onClick={() => setOpen(!open)}
        title="Problems"
        aria-expanded={open}
        data-testid="problems-status"
      >
        <span data-testid="problems-errors">
          {ICON.error} {errors}
        </span>{" "}
        <span data-testid="problems-warnings">
          {ICON.warning} {warnings}
        </span>
      </button>
      {open && (
        <section className="problems-panel" aria-label="Problems" data-testid="problems-panel">
          <header className="pane-header">
            Problems{" "}
            <span className="problems-count" data-testid="problems-count">
              {problems.length}
            </span>
            <span className="spacer" />
            <button type="button" className="icon-btn" onClick={() => setOpen(false)} aria-label="Close problems">
              ×
            </button>
          </header>
          <ul className="problems-list">
            {problems.map((p) => (
              <li key={`${p.path}:${p.line}:${p.column}:${p.message}`}>
                <button
                  type="button"
                  className={`problem problem-${p.severity}`}
                  onClick={() => session.reveal?.(p.path, p.line, p.column)}
                  data-testid="problem"
                >
                  <span className="problem-icon">{ICON[p.severity]}</span>
                  <span className="problem-message">{p.message.split("\n")[0]}</span>
                  <span className="problem-where">
                    {p.source ? `${p.source}${p.code ? `(${p.code})` : ""} · ` : ""}
                    {p.path}:{p.line}:{p.column}
                  </span>
                </button>
              </li>
            ))}
            {problems.length === 0 && (
              <li className="problems-empty">The language servers report no errors or warnings.</li>
            )}
          </ul>
        </section>
      )}
    </>
  );
}
