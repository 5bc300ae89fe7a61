"use client";

import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from "react";

// The actions the command palette offers. Each panel registers its own while it is on screen
// (useCommands), with handlers that call into its own state, so the palette knows no panel and
// lists only what can be done right now.

export type Command = {
  id: string;
  label: string;
  /** The shortcut that does the same, shown beside the label (e.g. "Ctrl+S"). */
  keys?: string;
  run: () => void;
  /** The command moves focus itself: the palette must not give it back to where it was. */
  takesFocus?: boolean;
};

class CommandRegistry {
  private bySource = new Map<string, Command[]>();
  private listeners = new Set<() => void>();
  private all: Command[] = [];

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };
  getSnapshot = () => this.all;

  set(source: string, commands: Command[] | null) {
    if (commands?.length) this.bySource.set(source, commands);
    else this.bySource.delete(source);
    this.all = [...this.bySource.values()].flat();
    for (const listener of this.listeners) listener();
  }
}

const CommandsContext = createContext<CommandRegistry | null>(null);

export function CommandsProvider({ children }: { children: ReactNode }) {
  const [registry] = useState(() => new CommandRegistry());
  return <CommandsContext.Provider value={registry}>{children}</CommandsContext.Provider>;
}

/**
 * Offers `commands` in the palette while the calling component is mounted. A new array on every
 * render is fine: only an open palette listens, and the handlers stay current.
 */
export function useCommands(commands: Command[] | null) {
  const registry = useContext(CommandsContext);
  const source = useId();
  useEffect(() => registry?.set(source, commands), [registry, source, commands]);
  useEffect(() => () => registry?.set(source, null), [registry, source]);
}

const NONE: Command[] = [];

/** Everything registered now, in registration order. */
export function useRegisteredCommands(): Command[] {
  const registry = useContext(CommandsContext);
  return useSyncExternalStore(
    registry?.subscribe ?? (() => () => {}),
    registry?.getSnapshot ?? (() => NONE),
    () => NONE,
  );
}

/**
 * Runs the registered command `id`, if there is one now (false when there is none). Reads the
 * registry when called, so the caller does not re-render whenever a panel registers commands.
 */
export function useRunCommand(): (id: string) => boolean {
  const registry = useContext(CommandsContext);
  return useCallback(
    (id: string) => {
      const command = registry?.getSnapshot().find((c) => c.id === id);
      command?.run();
      return !!command;
    },
    [registry],
  );
}

/** "Ctrl+S" on Linux and Windows, "⌘S" on a Mac. */
export function shortcutLabel(keys: string): string {
  if (typeof navigator === "undefined" || !/Mac|iPhone|iPad/.test(navigator.platform)) return keys;
  return keys
    .replace(/Ctrl\+/g, "⌘")
    .replace(/Shift\+/g, "⇧")
    .replace(/Alt\+/g, "⌥");
}
