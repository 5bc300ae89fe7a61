"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useRef } from "react";
import { FileIcon } from "@/components/ui/file-icon";
import { baseName, parentOf } from "@/components/ui/paths";
import { fileKey, matchKey, type ResultRow } from "@/components/search/result-rows";
import { replacementAt } from "@/lib/search-replace";
import type { FileMatches, LineMatch } from "@/lib/search-schemas";

export type ResultsProps = {
  rows: readonly ResultRow[];
  collapsed: ReadonlySet<string>;
  /** The replacement to preview inline (replace mode), and the regex that computes it; null otherwise. */
  replace: { text: string; regex: RegExp; isRegex: boolean } | null;
  canWrite: boolean;
  onToggle(path: string): void;
  onOpen(path: string, line: LineMatch, index: number): void;
  onDismiss(key: string): void;
  onPreviewFile(file: FileMatches): void;
  onReplaceFile(file: FileMatches): void;
};

const ROW_HEIGHT = 22;

/** The results grouped by file, one row per match, virtualized (a search may return thousands). */
export function SearchResults(props: ResultsProps) {
  const { rows } = props;
  const scroller = useRef<HTMLDivElement>(null);

  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });

  return (
    <div className="search-results" ref={scroller} role="tree" aria-label="Search results" data-testid="search-results">
      <div style={{ height: virtual.getTotalSize(), position: "relative" }}>
        {virtual.getVirtualItems().map((item) => {
          const row = rows[item.index]!;
          const style = {
            position: "absolute" as const,
            top: 0,
            left: 0,
            right: 0,
            height: ROW_HEIGHT,
            transform: `translateY(${item.start}px)`,
          };
          return row.kind === "file" ? (
            <FileRow key={`f:${row.file.path}`} style={style} row={row} {...props} />
          ) : (
            <MatchRow
              key={matchKey(row.file.path, row.line.matches[row.index]!.ref)}
              style={style}
              row={row}
              {...props}
            />
          );
        })}
      </div>
    </div>
  );
}

function FileRow({
  row,
  style,
  collapsed,
  replace,
  canWrite,
  onToggle,
  onDismiss,
  onPreviewFile,
  onReplaceFile,
}: ResultsProps & { row: Extract<ResultRow, { kind: "file" }>; style: React.CSSProperties }) {
  const { file } = row;
  const open = !collapsed.has(file.path);
  return (
    <div
      className="tree-row search-file"
      style={style}
      role="treeitem"
      aria-expanded={open}
      title={file.path}
      data-testid="search-file"
      data-path={file.path}
      onClick={() => onToggle(file.path)}
    >
      <span className="twisty">{open ? "▾" : "▸"}</span>
      <FileIcon name={baseName(file.path)} />
      <span className="label" data-testid="search-file-name">
        {baseName(file.path)}
      </span>
      {/* Cut from the left, so the folder nearest the file stays in view. */}
      <span className="search-dir" dir="rtl" data-testid="search-file-dir">
        <bdi dir="ltr">{parentOf(file.path)}</bdi>
      </span>
      <span className="search-actions">
        {replace && canWrite && (
          <>
            <button
              type="button"
              className="icon-btn"
              title="Preview the replacement"
              aria-label={`Preview replacing in ${file.path}`}
              data-testid="search-preview-file"
              onClick={(e) => (e.stopPropagation(), onPreviewFile(file))}
            >
              ⇄
            </button>
            <button
              type="button"
              className="icon-btn"
              title="Replace in this file"
              aria-label={`Replace in ${file.path}`}
              data-testid="search-replace-file"
              onClick={(e) => (e.stopPropagation(), onReplaceFile(file))}
            >
              ↻
            </button>
          </>
        )}
        <button
          type="button"
          className="icon-btn"
          title="Dismiss"
          aria-label={`Dismiss ${file.path}`}
          data-testid="search-dismiss-file"
          onClick={(e) => (e.stopPropagation(), onDismiss(fileKey(file.path)))}
        >
          ×
        </button>
      </span>
      <span className="search-count" data-testid="search-file-count">
        {row.count}
      </span>
    </div>
  );
}

function MatchRow({
  row,
  style,
  replace,
  onOpen,
  onDismiss,
}: ResultsProps & { row: Extract<ResultRow, { kind: "match" }>; style: React.CSSProperties }) {
  const { file, line, index } = row;
  const match = line.matches[index]!;
  const before = line.preview.slice(0, match.start);
  const text = line.preview.slice(match.start, match.end);
  const after = line.preview.slice(match.end);
  // The cut preview is enough context for a lookaround-free pattern; the server recomputes on the whole line.
  let replaced: string | null = null;
  if (replace) {
    try {
      replaced = replacementAt(
        replace.regex,
        replace.isRegex,
        line.preview,
        match.start,
        match.end - match.start,
        replace.text,
      );
    } catch {
      replaced = replace.text;
    }
  }
  return (
    <div
      className="tree-row search-match"
      style={style}
      role="treeitem"
      title={`${file.path}:${match.ref.line}:${match.ref.column}`}
      data-testid="search-match"
      data-path={file.path}
      data-line={match.ref.line}
      data-column={match.ref.column}
      onClick={() => onOpen(file.path, line, index)}
    >
      <span className="search-preview">
        {line.previewStart > 0 && before.length <= 16 && "…"}
        {before.length > 16 ? `…${before.slice(-12)}` : before}
        {replaced === null ? (
          <mark className="search-hit">{text}</mark>
        ) : (
          <>
            <del className="search-hit-del">{text}</del>
            <ins className="search-hit-ins">{replaced}</ins>
          </>
        )}
        {after}
      </span>
      <span className="search-actions">
        <button
          type="button"
          className="icon-btn"
          title="Dismiss"
          aria-label="Dismiss this match"
          data-testid="search-dismiss-match"
          onClick={(e) => (e.stopPropagation(), onDismiss(matchKey(file.path, match.ref)))}
        >
          ×
        </button>
      </span>
    </div>
  );
}
