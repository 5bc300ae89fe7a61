"use client";

import { useEffect, useRef, useState } from "react";
import { nameProblem } from "@/components/ui/paths";

type NameInputProps = {
  initial: string;
  placeholder?: string;
  testId: string;
  onCommit: (name: string) => void;
  onCancel: () => void;
};

/** Inline name field of the explorer: Enter commits, Escape or leaving it cancels. */
export function NameInput({ initial, placeholder, testId, onCommit, onCancel }: NameInputProps) {
  const [value, setValue] = useState(initial);
  const ref = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  const finish = (commit: boolean) => {
    if (done.current) return;
    done.current = true;
    if (commit) onCommit(value.trim());
    else onCancel();
  };
  const problem = value === initial ? null : nameProblem(value);

  useEffect(() => {
    const input = ref.current;
    if (!input) return;
    input.focus();
    // Select the name without its extension, as VS Code does.
    const dot = initial.lastIndexOf(".");
    input.setSelectionRange(0, dot > 0 ? dot : initial.length);
  }, [initial]);

  return (
    <span style={{ flex: 1, position: "relative" }}>
      <input
        ref={ref}
        className="input tree-input"
        value={value}
        placeholder={placeholder}
        aria-label={placeholder ?? "Name"}
        aria-invalid={problem !== null}
        data-testid={testId}
        onChange={(event) => setValue(event.target.value)}
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => {
          event.stopPropagation();
          if (event.key === "Enter" && !nameProblem(value)) finish(true);
          if (event.key === "Escape") finish(false);
        }}
        onBlur={() => finish(value.trim() !== "" && value !== initial && !nameProblem(value))}
      />
      {problem && value && <span className="name-problem">{problem}</span>}
    </span>
  );
}
