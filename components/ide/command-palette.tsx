"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { typed, typingBound } from "@/components/editor/early-typing";
import { useOpenTabs, useTabsState } from "@/components/editor/open-files-context";
import { useTRPC } from "@/components/trpc-provider";
import { shortcutLabel, useCommands, useRegisteredCommands, type Command } from "@/components/ui/commands";
import { highlightRuns, type FileMatch } from "@/components/ui/quick-open";
import type { QuickOpenIndex } from "@/components/ui/quick-open-index";
import { useTreeInput } from "@/components/ui/tree-context";

// The IDE's palette, as in VS Code: Ctrl/Cmd+P finds a file by a few letters of its path;
// Ctrl/Cmd+Shift+P (or typing ">") lists the commands the panels on screen offer. Arrows and
// Enter run, Escape closes and gives focus back.

type Item = {
  id: string;
  testId: string;
  label: ReactNode;
  detail?: ReactNode;
  keys?: string;
  run: () => void;
  takesFocus?: boolean;
};

const isOpenKey = (event: KeyboardEvent) =>
  (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "p";

/** `files`: the workspace's paths, matched off the main thread (kept by the IDE, fed file changes). */
export function CommandPalette({ projectId, files }: { projectId: string; files: QuickOpenIndex }) {
  const [query, setQuery] = useState<string | null>(null);
  const isOpen = useRef(false);
  const returnFocus = useRef<HTMLElement | null>(null);

  const open = useCallback((initial: string) => {
    if (!isOpen.current) returnFocus.current = document.activeElement as HTMLElement | null;
    isOpen.current = true;
    setQuery(initial);
  }, []);
  const close = (restore: boolean) => {
    isOpen.current = false;
    setQuery(null);
    if (restore) returnFocus.current?.focus?.();
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isOpenKey(event)) return;
      event.preventDefault();
      event.stopPropagation();
      open(event.shiftKey ? ">" : "");
    };
    // Capture phase, so Monaco and xterm do not swallow the shortcut first (nor the browser print Ctrl+P).
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [open]);

  useCommands(
    useMemo(
      () => [
        {
          id: "go-to-file",
          label: "Go to file…",
          keys: "Ctrl+P",
          run: () => requestAnimationFrame(() => open("")),
          takesFocus: true,
        },
      ],
      [open],
    ),
  );

  if (query === null) return null;
  return <PaletteDialog projectId={projectId} files={files} query={query} setQuery={setQuery} close={close} />;
}

type DialogProps = {
  projectId: string;
  files: QuickOpenIndex;
  query: string;
  setQuery: (query: string) => void;
  close: (restore: boolean) => void;
};

function PaletteDialog({ projectId, files, query, setQuery, close }: DialogProps) {
  const commandMode = query.startsWith(">");
  const commandItems = useCommandItems(commandMode ? query.slice(1) : null);
  const fileItems = useFileItems(projectId, files, commandMode ? null : query);
  const items = commandMode ? commandItems : fileItems.items;
  const [index, setIndex] = useState(0);
  const selected = Math.min(index, Math.max(0, items.length - 1));
  const inputRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);

  useEffect(() => inputRef.current?.focus(), []);
  // The editor's code, when it has not run yet, waits for a pause in this typing too: its run holds
  // the page's thread for 100-300 ms, which the list's answer to a key waited out.
  useEffect(() => {
    typingBound(1);
    return () => typingBound(-1);
  }, []);
  useEffect(() => {
    listRef.current?.querySelector(`[aria-selected="true"]`)?.scrollIntoView({ block: "nearest" });
  }, [selected]);

  const run = (item: Item | undefined) => {
    if (!item) return;
    close(!item.takesFocus);
    item.run();
  };
  // Enter before the list has caught up with the last key opens the best match for what was typed, once it is known.
  const answered = commandMode || fileItems.query === query;
  const [enterWaiting, setEnterWaiting] = useState(false);
  const best = answered ? items[0] : undefined;
  useEffect(() => {
    if (!enterWaiting || !best) return;
    setEnterWaiting(false);
    run(best);
  });

  const empty = commandMode ? "No matching commands" : fileItems.status;
  return (
    <div className="palette-backdrop" onMouseDown={(event) => event.target === event.currentTarget && close(true)}>
      <div
        className="palette"
        role="dialog"
        aria-modal="true"
        aria-label={commandMode ? "Command palette" : "Go to file"}
        data-testid="command-palette"
        data-mode={commandMode ? "commands" : "files"}
      >
        <input
          ref={inputRef}
          className="input"
          placeholder={commandMode ? "Type a command" : "Go to file by name (type > for commands)"}
          aria-label={commandMode ? "Command" : "File name"}
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={items[selected] ? `palette-${items[selected].id}` : undefined}
          value={query}
          data-testid="command-palette-input"
          spellCheck={false}
          onChange={(event) => {
            typed();
            // The worker starts on the key now; the list's own request, once the key is drawn, joins it.
            fileItems.ask(event.target.value);
            setQuery(event.target.value);
            setIndex(0);
            setEnterWaiting(false);
          }}
          onKeyDown={(event) => {
            if (event.key === "ArrowDown") setIndex(items.length ? (selected + 1) % items.length : 0);
            else if (event.key === "ArrowUp") setIndex(items.length ? (selected - 1 + items.length) % items.length : 0);
            else if (event.key === "Enter") answered ? run(items[selected]) : setEnterWaiting(true);
            else if (event.key === "Escape") close(true);
            else return;
            event.preventDefault();
          }}
        />
        <ul
          className="palette-list"
          id="palette-list"
          role="listbox"
          ref={listRef}
          data-query={commandMode ? query : (fileItems.query ?? undefined)}
        >
          {items.map((item, i) => (
            <li
              key={item.id}
              id={`palette-${item.id}`}
              role="option"
              aria-selected={i === selected}
              className="palette-item"
              data-testid={item.testId}
              onMouseEnter={() => setIndex(i)}
              onMouseDown={(event) => {
                event.preventDefault();
                run(item);
              }}
            >
              <span className="palette-label">{item.label}</span>
              {item.detail && <span className="palette-detail">{item.detail}</span>}
              {item.keys && <kbd className="palette-keys">{shortcutLabel(item.keys)}</kbd>}
            </li>
          ))}
          {items.length === 0 && <li className="palette-empty">{empty}</li>}
        </ul>
        {!commandMode && fileItems.truncated && (
          <div className="palette-empty">Only the first files of this large project are searched.</div>
        )}
      </div>
    </div>
  );
}

function useCommandItems(filter: string | null): Item[] {
  const commands = useRegisteredCommands();
  return useMemo(() => {
    if (filter === null) return [];
    const words = filter.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const matches = (command: Command) => words.every((word) => command.label.toLowerCase().includes(word));
    return commands
      .filter(matches)
      .sort((a, b) => a.label.localeCompare(b.label))
      .map((command) => ({ ...command, testId: `palette-command-${command.id}` }));
  }, [commands, filter]);
}

function useFileItems(
  projectId: string,
  files: QuickOpenIndex,
  query: string | null,
): { items: Item[]; query: string | null; status: string; truncated: boolean; ask: (query: string) => void } {
  const trpc = useTRPC();
  const tabs = useOpenTabs();
  const { paths: openFiles, active } = useTabsState();
  // The worker keeps the last listing, and file changes keep it current meanwhile; each opening reads
  // the listing again in the background (another view may have cached it before files came), and
  // the worker's answer follows when it arrives.
  const tree = useTreeInput();
  useEffect(() => files.warm(), [files]);
  const list = useQuery(
    trpc.fs.files.queryOptions({ projectId, ...tree }, { enabled: query !== null, refetchOnMount: "always" }),
  );
  useEffect(() => {
    if (list.data) files.setFiles(list.data.files);
  }, [files, list.data]);
  // The open tabs come first when nothing is typed, the one in view before the others.
  const recent = useMemo(
    () => [...(active ? [active] : []), ...openFiles.filter((p) => p !== active)],
    [openFiles, active],
  );
  const listed = !!list.data;
  const ask = useCallback(
    (next: string) => {
      if (listed && !next.startsWith(">")) files.rank(next, recent).catch(() => {}); // the list's request says why
    },
    [files, listed, recent],
  );
  // The matches shown and the query they answer: the input echoes each key at once, the list follows.
  const [shown, setShown] = useState<{ query: string; matches: FileMatch[] } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    if (query === null || !list.data) return;
    let current = true;
    files.rank(query, recent).then(
      (matches) => current && matches && setShown({ query, matches }),
      (error: Error) => current && setFailed(error.message),
    );
    return () => {
      current = false;
    };
  }, [files, query, recent, list.data]);
  const items = useMemo(
    () =>
      (shown?.matches ?? []).map(({ path, positions }): Item => {
        const slash = path.lastIndexOf("/");
        const name = path.slice(slash + 1);
        const folder = slash >= 0 ? path.slice(0, slash) : "";
        return {
          id: `file-${path}`,
          testId: "palette-file",
          label: highlightRuns(name, positions, slash + 1).map((run, i) =>
            run.hit ? <mark key={i}>{run.text}</mark> : run.text,
          ),
          detail: folder || undefined,
          run: () => void tabs.openFocused(path),
          takesFocus: true,
        };
      }),
    [shown, tabs],
  );
  const status = failed
    ? failed
    : list.isPending || (list.isFetching && !list.data?.files.length) || (list.data && !shown)
      ? "Listing files…"
      : list.error
        ? "Could not list the files."
        : list.data?.files.length
          ? "No file matches"
          : "This project has no files yet.";
  return { items, query: shown?.query ?? null, status, truncated: !!list.data?.truncated, ask };
}
