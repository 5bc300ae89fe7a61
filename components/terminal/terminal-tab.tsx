"use client";

import type { ReactNode } from "react";
import { CloseIcon } from "@/components/ui/icons";
import { closeOnMiddleClick } from "@/components/ui/middle-click";

/** One tab of the terminal panel: a click shows it, a middle click or its close button closes it. */
export function TerminalTab({
  selected,
  title,
  closeLabel,
  testId,
  onSelect,
  onClose,
  children,
}: {
  selected: boolean;
  title: string;
  closeLabel: string;
  testId: string;
  onSelect: () => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <div
      role="tab"
      aria-selected={selected}
      className={selected ? "terminal-tab active" : "terminal-tab"}
      onClick={onSelect}
      {...closeOnMiddleClick(onClose)}
      data-testid={testId}
      title={title}
    >
      {children}
      <button
        type="button"
        className="icon-btn"
        aria-label={closeLabel}
        data-testid="terminal-close"
        onClick={(event) => {
          event.stopPropagation();
          onClose();
        }}
      >
        <CloseIcon size={14} />
      </button>
    </div>
  );
}
