"use client";

import { useMutation } from "@tanstack/react-query";
import { forwardRef, useEffect, useImperativeHandle, useMemo, useRef, useState } from "react";
import { useOpenTabs } from "@/components/editor/open-files-context";
import { ReplacePreviewDialog } from "@/components/search/replace-preview-dialog";
import { SearchResults, fileKey, matchKey } from "@/components/search/search-results";
import { useFind } from "@/components/search/use-find";
import { useTRPC } from "@/components/trpc-provider";
import { useCommands } from "@/components/ui/commands";
import { errorMessage } from "@/components/ui/error-message";
import { CollapseIcon, EyeIcon } from "@/components/ui/icons";
import { matcherFor } from "@/lib/search-replace";
import type { FileMatches, FindQueryInput, MatchRef, ReplaceFileResult } from "@/lib/search-schemas";
import { useTreeInput } from "@/components/ui/tree-context";

export type SearchPanelHandle = { focus(replace: boolean): void };

type Options = { isRegex: boolean; matchCase: boolean; wholeWord: boolean; includeIgnored: boolean };

const DEBOUNCE_MS = 300;

/** Find in files (Ctrl/Cmd+Shift+F) and replace across them, as VS Code's Search view. */
export const SearchPanel = forwardRef<SearchPanelHandle, { projectId: string; canWrite: boolean }>(function SearchPanel(
  { projectId, canWrite },
  ref,
) {
  const trpc = useTRPC();
  const tree = useTreeInput();
  const tabs = useOpenTabs();
  const { state, run, cancel, clear } = useFind(projectId);
  const [pattern, setPattern] = useState("");
  const [replacement, setReplacement] = useState("");
  const [replaceOpen, setReplaceOpen] = useState(false);
  const [detailsOpen, setDetailsOpen] = useState(false);
  const [include, setInclude] = useState("");
  const [exclude, setExclude] = useState("");
  const [options, setOptions] = useState<Options>({
    isRegex: false,
    matchCase: false,
    wholeWord: false,
    includeIgnored: false,
  });
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [previewing, setPreviewing] = useState<FileMatches | null>(null);
  const [outcome, setOutcome] = useState<{ replaced: number; files: number; failures: ReplaceFileResult[] } | null>(
    null,
  );
  const patternInput = useRef<HTMLInputElement>(null);
  const replaceInput = useRef<HTMLInputElement>(null);

  const query: FindQueryInput = useMemo(
    () => ({ pattern, ...options, include, exclude }),
    [pattern, options, include, exclude],
  );
  const searched = useRef<FindQueryInput | null>(null);
  const search = (q: FindQueryInput) => {
    searched.current = q;
    setDismissed(new Set());
    setCollapsed(new Set());
    if (q.pattern) run(q);
    else clear();
  };

  // Typing searches after a pause; Enter searches at once, and the pause that follows the last key
  // then has nothing to do (it used to start the same search again just before the first finished).
  useEffect(() => {
    const timer = setTimeout(() => {
      if (JSON.stringify(searched.current) !== JSON.stringify(query)) search(query);
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query]);

  useImperativeHandle(ref, () => ({
    focus(replace: boolean) {
      if (replace && canWrite) setReplaceOpen(true);
      requestAnimationFrame(() => {
        const input = replace && canWrite ? replaceInput.current : patternInput.current;
        input?.focus();
        input?.select();
      });
    },
  }));

  const regex = useMemo(() => {
    try {
      return pattern ? matcherFor({ ...options, pattern }) : null;
    } catch {
      return null;
    }
  }, [pattern, options]);
  const replacing = replaceOpen && canWrite && regex ? { text: replacement, regex, isRegex: options.isRegex } : null;

  const keptMatches = (file: FileMatches): MatchRef[] =>
    dismissed.has(fileKey(file.path))
      ? []
      : file.lines
          .flatMap((l) => l.matches.map((m) => m.ref))
          .filter((ref) => !dismissed.has(matchKey(file.path, ref)));

  const replace = useMutation(
    trpc.search.replace.mutationOptions({
      onSuccess: (results) => {
        const done = results.filter((r) => r.ok);
        setOutcome({
          replaced: done.reduce((n, r) => n + (r.ok ? r.replaced : 0), 0),
          files: done.length,
          failures: results.filter((r) => !r.ok),
        });
        setPreviewing(null);
        if (searched.current) search(searched.current);
      },
    }),
  );
  const replaceIn = (files: FileMatches[]) => {
    const chosen = files.map((f) => ({ path: f.path, matches: keptMatches(f) })).filter((f) => f.matches.length > 0);
    if (!searched.current || chosen.length === 0) return;
    setOutcome(null);
    replace.mutate({ projectId, ...tree, query: searched.current, replacement, files: chosen });
  };

  const visibleMatches = state.files.reduce((n, f) => n + keptMatches(f).length, 0);
  const visibleFiles = state.files.filter((f) => keptMatches(f).length > 0).length;
  // A click on an option is an explicit action: it searches at once (only typing waits for a pause).
  const toggle = (key: keyof Options) => {
    const next = { ...options, [key]: !options[key] };
    setOptions(next);
    search({ pattern, ...next, include, exclude });
  };

  useCommands([
    ...(state.status === "searching" ? [{ id: "search-cancel", label: "Cancel the search", run: cancel }] : []),
    ...(state.files.length
      ? [{ id: "search-clear", label: "Clear search results", run: () => (setPattern(""), clear()) }]
      : []),
    ...(replacing && visibleMatches
      ? [
          {
            id: "search-replace-all",
            label: `Replace all (${visibleMatches} in ${visibleFiles} files)`,
            run: () => replaceIn(state.files),
          },
        ]
      : []),
    {
      id: "search-regex",
      label: `${options.isRegex ? "Turn off" : "Use"} regular expressions in search`,
      run: () => toggle("isRegex"),
    },
    {
      id: "search-case",
      label: `${options.matchCase ? "Ignore" : "Match"} case in search`,
      run: () => toggle("matchCase"),
    },
    {
      id: "search-word",
      label: `${options.wholeWord ? "Stop matching" : "Match"} whole words in search`,
      run: () => toggle("wholeWord"),
    },
  ]);

  const status =
    state.status === "searching"
      ? `Searching… ${state.matches ? `${state.matches} results so far` : ""}`
      : state.status === "error"
        ? null
        : state.status === "idle"
          ? null
          : visibleMatches === 0
            ? "No results."
            : `${visibleMatches} result${visibleMatches === 1 ? "" : "s"} in ${visibleFiles} file${visibleFiles === 1 ? "" : "s"}${state.status === "cancelled" ? " (cancelled)" : ""}`;

  return (
    <div className="pane search-panel" data-testid="search-panel">
      <div className="pane-header">
        <span>Search</span>
        <span className="spacer" />
        <button
          type="button"
          className="icon-btn"
          title="Collapse all"
          aria-label="Collapse all results"
          onClick={() => setCollapsed(new Set(state.files.map((f) => f.path)))}
        >
          <CollapseIcon />
        </button>
        <button
          type="button"
          className="icon-btn"
          title="Clear search results"
          aria-label="Clear search results"
          data-testid="search-clear"
          onClick={() => (setPattern(""), setReplacement(""), clear())}
        >
          ⌫
        </button>
      </div>
      <form
        className="search-form"
        onSubmit={(event) => {
          event.preventDefault();
          search(query);
        }}
      >
        <div className="search-row">
          {canWrite && (
            <button
              type="button"
              className="icon-btn search-expand"
              title="Toggle replace"
              aria-label="Toggle replace"
              aria-expanded={replaceOpen}
              data-testid="search-toggle-replace"
              onClick={() => setReplaceOpen(!replaceOpen)}
            >
              {replaceOpen ? "▾" : "▸"}
            </button>
          )}
          <div className="search-box">
            <input
              ref={patternInput}
              className="input"
              placeholder="Search"
              aria-label="Search"
              value={pattern}
              onChange={(e) => setPattern(e.target.value)}
              data-testid="search-input"
            />
            <button
              type="button"
              className="icon-btn"
              title="Match Case"
              aria-label="Match Case"
              aria-pressed={options.matchCase}
              onClick={() => toggle("matchCase")}
              data-testid="search-match-case"
            >
              Aa
            </button>
            <button
              type="button"
              className="icon-btn"
              title="Match Whole Word"
              aria-label="Match Whole Word"
              aria-pressed={options.wholeWord}
              onClick={() => toggle("wholeWord")}
              data-testid="search-whole-word"
            >
              <u>ab</u>
            </button>
            <button
              type="button"
              className="icon-btn"
              title="Use Regular Expression"
              aria-label="Use Regular Expression"
              aria-pressed={options.isRegex}
              onClick={() => toggle("isRegex")}
              data-testid="search-regex"
            >
              .*
            </button>
          </div>
        </div>
        {replaceOpen && canWrite && (
          <div className="search-row search-replace-row">
            <div className="search-box">
              <input
                ref={replaceInput}
                className="input"
                placeholder="Replace"
                aria-label="Replace"
                value={replacement}
                onChange={(e) => setReplacement(e.target.value)}
                data-testid="replace-input"
              />
            </div>
            <button
              type="button"
              className="btn btn-sm"
              title="Replace All"
              disabled={!visibleMatches || replace.isPending || state.status === "searching"}
              onClick={() => replaceIn(state.files)}
              data-testid="replace-all"
            >
              {replace.isPending ? "Replacing…" : "Replace All"}
            </button>
          </div>
        )}
        <div className="search-row search-details-toggle">
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            title="Files to include and exclude"
            aria-expanded={detailsOpen}
            onClick={() => setDetailsOpen(!detailsOpen)}
            data-testid="search-details"
          >
            {detailsOpen ? "▾" : "▸"} Files to include and exclude
          </button>
          <span className="spacer" />
          <button
            type="button"
            className="icon-btn"
            title={
              options.includeIgnored
                ? "Ignored files are searched"
                : "Search ignored files too (node_modules, build output)"
            }
            aria-label="Search ignored files"
            aria-pressed={options.includeIgnored}
            onClick={() => toggle("includeIgnored")}
            data-testid="search-ignored"
          >
            <EyeIcon />
          </button>
        </div>
        {detailsOpen && (
          <div className="search-details">
            <label className="field">
              <span>files to include</span>
              <input
                className="input"
                placeholder="e.g. src/**, *.ts"
                value={include}
                onChange={(e) => setInclude(e.target.value)}
                data-testid="search-include"
              />
            </label>
            <label className="field">
              <span>files to exclude</span>
              <input
                className="input"
                placeholder="e.g. **/*.test.ts, dist"
                value={exclude}
                onChange={(e) => setExclude(e.target.value)}
                data-testid="search-exclude"
              />
            </label>
          </div>
        )}
        <button type="submit" hidden />
      </form>
      <div className="search-status" data-testid="search-status" data-state={state.status}>
        {state.status === "error" ? <span className="error-text">{state.error}</span> : <span>{status}</span>}
        {state.status === "searching" && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={cancel} data-testid="search-cancel">
            Cancel
          </button>
        )}
      </div>
      {state.limitHit && (
        <div className="search-note" data-testid="search-more">
          The search stopped at {state.matches.toLocaleString()} results; there are more. Narrow it with a more specific
          search or files to include.
        </div>
      )}
      {outcome && (
        <div className="search-note" data-testid="replace-outcome" role="status">
          Replaced {outcome.replaced} occurrence{outcome.replaced === 1 ? "" : "s"} in {outcome.files} file
          {outcome.files === 1 ? "" : "s"}.
          {outcome.failures.map((f) => (
            <div key={f.path} className="error-text">
              {!f.ok && f.message}
            </div>
          ))}
        </div>
      )}
      {replace.error && <div className="search-note error-text">{errorMessage(replace.error)}</div>}
      <SearchResults
        files={state.files}
        dismissed={dismissed}
        collapsed={collapsed}
        replace={replacing}
        canWrite={canWrite}
        onToggle={(path) => setCollapsed((s) => toggled(s, path))}
        onOpen={(path, line, index) => {
          const m = line.matches[index]!;
          void tabs.openAt(path, { line: m.ref.line, column: m.ref.column, length: m.ref.text.length });
        }}
        onDismiss={(key) => setDismissed((s) => toggled(s, key))}
        onPreviewFile={setPreviewing}
        onReplaceFile={(file) => replaceIn([file])}
      />
      {previewing && searched.current && (
        <ReplacePreviewDialog
          projectId={projectId}
          query={searched.current}
          replacement={replacement}
          path={previewing.path}
          matches={keptMatches(previewing)}
          onReplace={() => replaceIn([previewing])}
          onClose={() => setPreviewing(null)}
        />
      )}
    </div>
  );
});

function toggled(set: ReadonlySet<string>, key: string): ReadonlySet<string> {
  const next = new Set(set);
  if (next.has(key)) next.delete(key);
  else next.add(key);
  return next;
}
