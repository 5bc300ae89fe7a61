"use client";

import { useCallback, useEffect, useSyncExternalStore } from "react";

export type Theme = "dark" | "light";
const KEY = "tandem.theme";
const EVENT = "tandem-theme-change";

function read(): Theme {
  try {
    return window.localStorage.getItem(KEY) === "light" ? "light" : "dark";
  } catch {
    return "dark";
  }
}

function subscribe(onChange: () => void) {
  const onStorage = (event: StorageEvent) => {
    if (event.key === KEY) onChange();
  };
  window.addEventListener(EVENT, onChange);
  window.addEventListener("storage", onStorage);
  return () => {
    window.removeEventListener(EVENT, onChange);
    window.removeEventListener("storage", onStorage);
  };
}

function apply(theme: Theme) {
  document.documentElement.dataset.theme = theme;
}

export function setTheme(theme: Theme) {
  try {
    window.localStorage.setItem(KEY, theme);
  } catch {
    // Storage may be unavailable; the choice then lasts for this page only.
  }
  apply(theme);
  window.dispatchEvent(new Event(EVENT));
}

/** The UI theme, kept in localStorage and on <html data-theme>; re-renders when it changes. */
export function useTheme() {
  const theme = useSyncExternalStore<Theme>(subscribe, read, () => "dark");
  const toggle = useCallback(() => setTheme(read() === "dark" ? "light" : "dark"), []);
  return { theme, setTheme, toggle, monacoTheme: theme === "light" ? "vs" : "vs-dark" } as const;
}

/** Mounted once in the root layout: puts the stored theme on <html> (no inline script, the CSP forbids it). */
export function ThemeApplier() {
  const { theme } = useTheme();
  useEffect(() => apply(theme), [theme]);
  return null;
}
