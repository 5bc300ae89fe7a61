"use client";

import { useEffect, useState } from "react";
import { useLanguageSession, type WorkspaceSymbol } from "@/components/editor/language/language-session";

/** Go to Symbol in Workspace (Ctrl/Cmd+T), answered by the project's language servers. */
export function SymbolSearch() {
  const session = useLanguageSession();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<WorkspaceSymbol[]>([]);
  const [selected, setSelected] = useState(0);
  const [searching, setSearching] = useState(false);

  useEffect(() => {
    if (!session) return;
    session.showSymbolSearch = () => setOpen(true);
    // Outside the editor too; browsers that keep Ctrl+T for a new tab leave the editor's own action.
    const onKey = (event: KeyboardEvent) => {
      if (
        (event.ctrlKey || event.metaKey) &&
        !event.shiftKey &&
        event.key.toLowerCase() === "t" &&
        !event.defaultPrevented
      ) {
        event.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => {
      session.showSymbolSearch = null;
      window.removeEventListener("keydown", onKey);
    };
  }, [session]);

  useEffect(() => {
    if (!open || !session?.searchSymbols || query.trim() === "") {
      setFound([]);
      return;
    }
    let current = true;
    setSearching(true);
    const timer = setTimeout(() => {
      void session.searchSymbols!(query.trim())
        .then((symbols) => current && (setFound(symbols), setSelected(0)))
        .finally(() => current && setSearching(false));
    }, 120);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [open, query, session]);

  if (!open || !session) return null;
  const close = () => {
    setOpen(false);
    setQuery("");
  };
  const go = (symbol: WorkspaceSymbol | undefined) => {
    if (!symbol) return;
    close();
    session.reveal?.(symbol.path, symbol.line, symbol.column);
  };

  return (
    <div className="palette-backdrop" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div
        className="palette"
        role="dialog"
        aria-modal="true"
        aria-label="Go to symbol in workspace"
        data-testid="symbol-search"
      >
        <input
          className="input"
          autoFocus
          placeholder="Symbol name, e.g. UserService"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") close();
            else if (event.key === "ArrowDown") setSelected((i) => Math.min(found.length - 1, i + 1));
            else if (event.key === "ArrowUp") setSelected((i) => Math.max(0, i - 1));
            else if (event.key === "Enter") go(found[selected]);
            else return;
            event.preventDefault();
          }}
          data-testid="symbol-search-input"
        />
        <ul className="palette-list" role="listbox">
          {found.map((symbol, i) => (
            <li
              key={`${symbol.path}:${symbol.line}:${symbol.column}:${symbol.name}`}
              role="option"
              aria-selected={i === selected}
              className="palette-item"
              onMouseEnter={() => setSelected(i)}
              onMouseDown={(event) => (event.preventDefault(), go(symbol))}
              data-testid="symbol-search-item"
            >
              <span className="palette-label">{symbol.name}</span>
              <span className="palette-detail">
                {symbol.kind} · {symbol.path}:{symbol.line}
              </span>
            </li>
          ))}
          {found.length === 0 && (
            <li className="palette-empty">
              {query.trim() === "" ? "Type a symbol name." : searching ? "Searching…" : "No symbols found."}
            </li>
          )}
        </ul>
      </div>
    </div>
  );
}
