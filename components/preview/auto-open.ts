"use client";

import { useCallback, useEffect, useState } from "react";

// A person's choice, kept in this browser as the theme is: open the Preview panel by itself when
// a server starts listening in the workspace (a terminal's `npm run dev`, the agent's background job).

const KEY = "tandem.preview.autoOpen";

/** Read at the moment a port appears, so a change in the Ports view counts at once. */
export const autoOpenPreview = () => localStorage.getItem(KEY) === "1";

export function useAutoOpenPreview(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(false);
  useEffect(() => setOn(localStorage.getItem(KEY) === "1"), []);
  const set = useCallback((value: boolean) => {
    if (value) localStorage.setItem(KEY, "1");
    else localStorage.removeItem(KEY);
    setOn(value);
  }, []);
  return [on, set];
}
