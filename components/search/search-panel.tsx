"use client";

import { useMutation } from "@tanstack/react-query";
import { forwardRef, useEffect, useImperativeHandle, useMemo, useRef, useState } from "react";
import { useOpenTabs } from "@/components/editor/open-files-context";
import { ReplacePreviewDialog } from "@/components/search/replace-preview-dialog";
import { keptMatches, resultRows, type ResultRows } from "@/components/search/result-rows";
import { SearchForm, type SearchFields, type SearchOptions } from "@/components/search/search-form";
import { SearchResults } from "@/components/search/search-results";
import { useFind } from "@/components/search/use-find";
import { useTRPC } from "@/components/trpc-provider";
import { useCommands } from "@/components/ui/commands";
import { errorMessage } from "@/components/ui/error-message";
import { CollapseIcon } from "@/components/ui/icons";
import { matcherFor } from "@/lib/search-replace";
import type { FileMatches, FindQueryInput, ReplaceFileResult } from "@/lib/search-schemas";
import { useTreeInput } from "@/components/ui/tree-context";

export type SearchPanelHandle = { focus(replace: boolean): void };

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
  const [fields, setFields] = useState<SearchFields>({ pattern: "", replacement: "", include: "", exclude: "" });
  const { pattern, replacement, include, exclude } = fields;
  const [replaceOpen, setReplaceOpen] = useState(false);
  const [options, setOptions] = useState<SearchOptions>({
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
  const isSearched = (q: FindQueryInput) => JSON.stringify(searched.current) === JSON.stringify(q);
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
      if (!isSearched(query)) search(query);
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

  // Built on from the last render's rows while a search appends files (result-rows.ts).
  const lastRows = useRef<ResultRows | null>(null);
  const shown = useMemo(
    () => (lastRows.current = resultRows(lastRows.current, state.files, dismissed, collapsed)),
    [state.files, dismissed, collapsed],
  );

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
    const chosen = files
      .map((f) => ({ path: f.path, matches: keptMatches(f, dismissed) }))
      .filter((f) => f.matches.length > 0);
    if (!searched.current || chosen.length === 0) return;
    setOutcome(null);
    replace.mutate({ projectId, ...tree, query: searched.current, replacement, files: chosen });
  };

  const visibleMatches = shown.matches;
  const visibleFiles = shown.fileCount;
  // A click on an option is an explicit action: it searches at once (only typing waits for a pause).
  const toggle = (key: keyof SearchOptions) => {
    const next = { ...options, [key]: !options[key] };
    setOptions(next);
    search({ pattern, ...next, include, exclude });
  };

  useCommands([
    ...(state.status === "searching" ? [{ id: "search-cancel", label: "Cancel the search", run: cancel }] : []),
    ...(state.files.length
      ? [
          {
            id: "search-clear",
            label: "Clear search results",
            run: () => (setFields((f) => ({ ...f, pattern: "" })), clear()),
          },
        ]
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
          onClick={() => (setFields((f) => ({ ...f, pattern: "", replacement: "" })), clear())}
        >
          ⌫
        </button>
      </div>
      <SearchForm
        fields={fields}
        onFields={(change) => setFields((f) => ({ ...f, ...change }))}
        options={options}
        onToggle={toggle}
        onSubmit={() => {
          // Enter on the search that is running lets it finish: starting it again threw away what
          // it had found (a pause before Enter has already started it).
          if (!(state.status === "searching" && isSearched(query))) search(query);
        }}
        canWrite={canWrite}
        replaceOpen={replaceOpen}
        onReplaceOpen={setReplaceOpen}
        replaceAll={{
          disabled: !visibleMatches || replace.isPending || state.status === "searching",
          pending: replace.isPending,
          run: () => replaceIn(state.files),
        }}
        patternInput={patternInput}
        replaceInput={replaceInput}
      />
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
        rows={shown.rows}
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
          matches={keptMatches(previewing, dismissed)}
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
