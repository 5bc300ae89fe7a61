"use client";

import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { useTheme } from "@/components/ui/theme";

export type PaletteCommand = { id: string; label: string; run: () => void };

/** Clicks a control already on the page (used for actions whose handlers live deep in other panels). */
function clickTestId(testId: string) {
  document.querySelector<HTMLElement>(`[data-testid="${testId}"]`)?.click();
}

/** The IDE's command palette: Ctrl/Cmd+Shift+P opens it; type to filter, arrows + Enter run, Escape closes. */
export function CommandPalette({ projectId }: { projectId: string }) {
  const router = useRouter();
  const { theme, toggle } = useTheme();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [index, setIndex] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);

  const commands = useMemo<PaletteCommand[]>(
    () => [
      { id: "theme", label: `Toggle light/dark theme (now ${theme})`, run: toggle },
      { id: "projects", label: "Go to projects", run: () => router.push("/") },
      { id: "settings", label: "Project settings", run: () => router.push(`/p/${projectId}/settings`) },
      // The terminal and agent panels own these actions; their buttons are the existing entry points.
      { id: "terminal", label: "New terminal", run: () => clickTestId(document.querySelector('[data-testid="terminal-new"]') ? "terminal-new" : "terminal-open") },
      { id: "session", label: "New agent session", run: () => clickTestId("new-session") },
      {
        id: "composer",
        label: "Focus agent message box",
        run: () => requestAnimationFrame(() => document.querySelector<HTMLElement>('[data-testid="composer-input"]')?.focus()),
      },
    ],
    [theme, toggle, router, projectId],
  );

  const q = query.trim().toLowerCase();
  const shown = q ? commands.filter((c) => c.label.toLowerCase().includes(q)) : commands;
  const selected = Math.min(index, Math.max(0, shown.length - 1));

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.shiftKey && !event.altKey && event.key.toLowerCase() === "p") {
        event.preventDefault();
        event.stopPropagation();
        if (!open) returnFocus.current = document.activeElement as HTMLElement | null;
        setQuery("");
        setIndex(0);
        setOpen(true);
      }
    };
    // Capture phase, so Monaco and xterm do not swallow the shortcut first.
    window.addEventListener("keydown", onKey, true);
    return () => window.removeEventListener("keydown", onKey, true);
  }, [open]);

  useEffect(() => {
    if (open) inputRef.current?.focus();
  }, [open]);

  if (!open) return null;

  const close = (restore = true) => {
    setOpen(false);
    if (restore) returnFocus.current?.focus?.();
  };
  const run = (command: PaletteCommand | undefined) => {
    if (!command) return;
    close(command.id !== "composer");
    command.run();
  };

  return (
    <div className="palette-backdrop" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div className="palette" role="dialog" aria-modal="true" aria-label="Command palette" data-testid="command-palette">
        <input
          ref={inputRef}
          className="input"
          placeholder="Type a command"
          aria-label="Command"
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={shown[selected] ? `palette-${shown[selected].id}` : undefined}
          value={query}
          data-testid="command-palette-input"
          onChange={(event) => {
            setQuery(event.target.value);
            setIndex(0);
          }}
          onKeyDown={(event) => {
            if (event.key === "ArrowDown") {
              event.preventDefault();
              setIndex(shown.length ? (selected + 1) % shown.length : 0);
            } else if (event.key === "ArrowUp") {
              event.preventDefault();
              setIndex(shown.length ? (selected - 1 + shown.length) % shown.length : 0);
            } else if (event.key === "Enter") {
              event.preventDefault();
              run(shown[selected]);
            } else if (event.key === "Escape") {
              event.preventDefault();
              close();
            }
          }}
        />
        <ul className="palette-list" id="palette-list" role="listbox">
          {shown.map((command, i) => (
            <li
              key={command.id}
              id={`palette-${command.id}`}
              role="option"
              aria-selected={i === selected}
              className="palette-item"
              data-testid={`palette-command-${command.id}`}
              onMouseEnter={() => setIndex(i)}
              onMouseDown={(event) => {
                event.preventDefault();
                run(command);
              }}
            >
              {command.label}
            </li>
          ))}
          {shown.length === 0 && <li className="palette-empty">No matching commands</li>}
        </ul>
      </div>
    </div>
  );
}
