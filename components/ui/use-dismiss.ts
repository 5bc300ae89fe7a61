"use client";

import { type RefObject, useEffect } from "react";

/** While `active`, calls `dismiss` on Escape or a press outside `ref`'s element (menus and popovers). */
export function useDismiss(ref: RefObject<HTMLElement | null>, active: boolean, dismiss: () => void) {
  useEffect(() => {
    if (!active) return;
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent ? event.key === "Escape" : !ref.current?.contains(event.target as Node))
        dismiss();
    };
    window.addEventListener("mousedown", close);
    window.addEventListener("keydown", close);
    return () => {
      window.removeEventListener("mousedown", close);
      window.removeEventListener("keydown", close);
    };
  }, [ref, active, dismiss]);
}
