"use client";

import { useState, type RefObject } from "react";
import { EyeIcon } from "@/components/ui/icons";

export type SearchOptions = { isRegex: boolean; matchCase: boolean; wholeWord: boolean; includeIgnored: boolean };

/** What the person typed in the Search panel's form. */
export type SearchFields = { pattern: string; replacement: string; include: string; exclude: string };

export type SearchFormProps = {
  fields: SearchFields;
  onFields(change: Partial<SearchFields>): void;
  options: SearchOptions;
  onToggle(option: keyof SearchOptions): void;
  /** Enter in the form. */
  onSubmit(): void;
  canWrite: boolean;
  replaceOpen: boolean;
  onReplaceOpen(open: boolean): void;
  replaceAll: { disabled: boolean; pending: boolean; run(): void };
  patternInput: RefObject<HTMLInputElement | null>;
  replaceInput: RefObject<HTMLInputElement | null>;
};

/** The query of find in files: the pattern with its options, the replacement, files to include and exclude. */
export function SearchForm(props: SearchFormProps) {
  const { fields, onFields, options, onToggle, canWrite, replaceOpen } = props;
  const [detailsOpen, setDetailsOpen] = useState(false);
  const set = (key: keyof SearchFields) => (event: React.ChangeEvent<HTMLInputElement>) =>
    onFields({ [key]: event.target.value });
  const option = (key: keyof SearchOptions, title: string, testId: string, label: React.ReactNode) => (
    <button
      type="button"
      className="icon-btn"
      title={title}
      aria-label={title}
      aria-pressed={options[key]}
      onClick={() => onToggle(key)}
      data-testid={testId}
    >
      {label}
    </button>
  );
  return (
    <form
      className="search-form"
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
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
            onClick={() => props.onReplaceOpen(!replaceOpen)}
          >
            {replaceOpen ? "▾" : "▸"}
          </button>
        )}
        <div className="search-box">
          <input
            ref={props.patternInput}
            className="input"
            placeholder="Search"
            aria-label="Search"
            value={fields.pattern}
            onChange={set("pattern")}
            data-testid="search-input"
          />
          {option("matchCase", "Match Case", "search-match-case", "Aa")}
          {option("wholeWord", "Match Whole Word", "search-whole-word", <u>ab</u>)}
          {option("isRegex", "Use Regular Expression", "search-regex", ".*")}
        </div>
      </div>
      {replaceOpen && canWrite && (
        <div className="search-row search-replace-row">
          <div className="search-box">
            <input
              ref={props.replaceInput}
              className="input"
              placeholder="Replace"
              aria-label="Replace"
              value={fields.replacement}
              onChange={set("replacement")}
              data-testid="replace-input"
            />
          </div>
          <button
            type="button"
            className="btn btn-sm"
            title="Replace All"
            disabled={props.replaceAll.disabled}
            onClick={props.replaceAll.run}
            data-testid="replace-all"
          >
            {props.replaceAll.pending ? "Replacing…" : "Replace All"}
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
          onClick={() => onToggle("includeIgnored")}
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
              value={fields.include}
              onChange={set("include")}
              data-testid="search-include"
            />
          </label>
          <label className="field">
            <span>files to exclude</span>
            <input
              className="input"
              placeholder="e.g. **/*.test.ts, dist"
              value={fields.exclude}
              onChange={set("exclude")}
              data-testid="search-exclude"
            />
          </label>
        </div>
      )}
      <button type="submit" hidden />
    </form>
  );
}
