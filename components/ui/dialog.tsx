"use client";

import { useEffect, useRef, type ReactNode } from "react";

type DialogProps = {
  title: string;
  children: ReactNode;
  onClose: () => void;
  testId?: string;
  /** Most of the window, for content such as a diff, instead of a form's width. */
  wide?: boolean;
};

/** A modal: Escape or a click on the backdrop closes it; focus starts on the first field or button. */
export function Dialog({ title, children, onClose, testId, wide }: DialogProps) {
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const first = ref.current?.querySelector<HTMLElement>(
      "input, textarea, select, button.btn-primary, button.btn-danger, button",
    );
    first?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  return (
    <div className="dialog-backdrop" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div
        ref={ref}
        className={wide ? "dialog dialog-wide" : "dialog"}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid={testId}
      >
        <h2>{title}</h2>
        {children}
      </div>
    </div>
  );
}
