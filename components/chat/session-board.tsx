"use client";

import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { BOARD_STATES, type BoardRow, type BoardState, stateOf } from "@/components/chat/use-session-board";
import type { AgentSessions } from "@/components/chat/use-agent-sessions";
import { useOpenTabs } from "@/components/editor/open-files-context";
import { useHasChangesHost } from "@/components/review/active-session";

function ago(date: Date, now: number): string {
  const s = Math.max(0, Math.round((now - date.getTime()) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/** Re-renders every 30 s so "3 min ago" stays true (a clock, not a request). */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * The agent panel's Board tab: every session of the project, live (use-session-board.ts), with who
 * started it, its state, what it changed, its last check and when it last moved; filtered by person
 * and state. Arrow keys move through it, Enter opens the session, R reviews its changes.
 */
export function SessionBoard({ agent, me }: { agent: AgentSessions; me: { id: string; name: string } }) {
  const rows = agent.board;
  const tabs = useOpenTabs();
  const canReview = useHasChangesHost();
  const now = useNow();
  const [person, setPerson] = useState("");
  const [state, setState] = useState<BoardState | "">("");
  const [selected, setSelected] = useState<string | null>(null);
  const list = useRef<HTMLUListElement>(null);

  const people = useMemo(() => {
    const names = new Map<string, string>();
    for (const row of rows ?? []) if (row.authorId) names.set(row.authorId, row.authorName ?? "Someone");
    return [...names].sort((a, b) => (a[0] === me.id ? -1 : b[0] === me.id ? 1 : a[1].localeCompare(b[1])));
  }, [rows, me.id]);
  const shown = (rows ?? []).filter((r) => (!person || r.authorId === person) && (!state || stateOf(r) === state));
  const index = Math.max(
    0,
    shown.findIndex((r) => r.id === selected),
  );
  const current = shown[index] ?? null;

  useEffect(() => {
    list.current
      ?.querySelector<HTMLElement>(`[data-session-id="${current?.id}"]`)
      ?.scrollIntoView({ block: "nearest" });
  }, [current?.id]);

  const onKey = (event: KeyboardEvent) => {
    const move = (to: number) => {
      event.preventDefault();
      const row = shown[Math.min(shown.length - 1, Math.max(0, to))];
      if (row) setSelected(row.id);
    };
    if (event.key === "ArrowDown") move(index + 1);
    else if (event.key === "ArrowUp") move(index - 1);
    else if (event.key === "Home") move(0);
    else if (event.key === "End") move(shown.length - 1);
    else if (event.key === "Enter" && current) {
      event.preventDefault();
      agent.open(current.id);
    } else if (event.key.toLowerCase() === "r" && current && canReview && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      tabs.openChanges(current.id);
    }
  };

  return (
    <div className="session-board" data-testid="session-board">
      <div className="session-board-filters">
        <select
          aria-label="Person"
          value={person}
          onChange={(e) => setPerson(e.target.value)}
          data-testid="board-person"
        >
          <option value="">Everyone</option>
          {people.map(([id, name]) => (
            <option key={id} value={id}>
              {id === me.id ? `${name} (me)` : name}
            </option>
          ))}
        </select>
        <select
          aria-label="State"
          value={state}
          onChange={(e) => setState(e.target.value as BoardState | "")}
          data-testid="board-state"
        >
          <option value="">Any state</option>
          {Object.entries(BOARD_STATES).map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
        <span className="spacer" />
        <a
          className="btn btn-ghost btn-sm"
          href="/account#notifications"
          title="Sessions that wait for you or finish reach your inbox; choose there whether they also come as browser notifications, email or chat"
          data-testid="board-notify"
        >
          Notifications…
        </a>
      </div>
      {rows === null ? (
        <div className="center-message">Loading sessions…</div>
      ) : shown.length === 0 ? (
        <div className="empty">{rows.length ? "No session matches." : "No sessions yet."}</div>
      ) : (
        <ul
          ref={list}
          className="board-rows"
          role="listbox"
          aria-label="Sessions"
          tabIndex={0}
          aria-activedescendant={current ? `board-${current.id}` : undefined}
          onKeyDown={onKey}
          data-testid="board-rows"
        >
          {shown.map((row) => (
            <BoardItem
              key={row.id}
              row={row}
              now={now}
              selected={row.id === current?.id}
              onSelect={() => setSelected(row.id)}
              onOpen={() => agent.open(row.id)}
              onReview={canReview ? () => tabs.openChanges(row.id) : null}
            />
          ))}
        </ul>
      )}
    </div>
  );
}

function BoardItem({
  row,
  now,
  selected,
  onSelect,
  onOpen,
  onReview,
}: {
  row: BoardRow;
  now: number;
  selected: boolean;
  onSelect: () => void;
  onOpen: () => void;
  onReview: (() => void) | null;
}) {
  const state = stateOf(row);
  return (
    <li
      id={`board-${row.id}`}
      role="option"
      aria-selected={selected}
      className={selected ? "board-row selected" : "board-row"}
      data-testid="board-row"
      data-session-id={row.id}
      data-state={state}
      onClick={onSelect}
      onDoubleClick={onOpen}
    >
      <div className="board-row-head">
        <span className={`board-state state-${state}`} data-testid="board-row-state">
          {BOARD_STATES[state]}
        </span>
        <span className="board-title" title={row.title}>
          {row.title}
        </span>
        <time className="muted" dateTime={row.updatedAt.toISOString()} title={row.updatedAt.toLocaleString()}>
          {ago(row.updatedAt, now)}
        </time>
      </div>
      <div className="board-row-meta">
        <span>{row.authorName ?? "Someone"}</span>
        {row.branch && (
          <span className="board-branch" title={`Branch ${row.branch}`}>
            {row.branch}
          </span>
        )}
        {row.pullRequestUrl && (
          <a
            href={row.pullRequestUrl}
            target="_blank"
            rel="noreferrer"
            onClick={(event) => event.stopPropagation()}
            data-testid="board-pull-request"
          >
            Pull request
          </a>
        )}
        {row.filesChanged > 0 && (
          <span data-testid="board-row-changes">
            {row.filesChanged} {row.filesChanged === 1 ? "file" : "files"}{" "}
            <span className="diff-added">+{row.linesAdded}</span>{" "}
            <span className="diff-removed">−{row.linesRemoved}</span>
          </span>
        )}
        {row.check && (
          <span
            className={row.check.exitCode === 0 ? "board-check passed" : "board-check failed"}
            title={`${row.check.command}: ${row.check.exitCode === 0 ? "passed" : row.check.exitCode === null ? "did not finish" : `exit code ${row.check.exitCode}`}`}
            data-testid="board-row-check"
          >
            {row.check.exitCode === 0 ? "✓" : "✗"} {row.check.command}
          </span>
        )}
        {row.openComments > 0 && (
          <span title="Review comments not yet addressed">
            {row.openComments} {row.openComments === 1 ? "comment" : "comments"}
          </span>
        )}
      </div>
      <div className="board-row-actions">
        <button type="button" className="btn btn-ghost btn-sm" tabIndex={-1} onClick={onOpen}>
          Open
        </button>
        {onReview && (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            tabIndex={-1}
            onClick={onReview}
            data-testid="board-review"
            title="Review the session's whole change, with comments (R)"
          >
            Review
          </button>
        )}
      </div>
    </li>
  );
}
