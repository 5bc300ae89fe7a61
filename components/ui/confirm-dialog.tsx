"use client";

import { useState, type ReactNode } from "react";
import { Dialog } from "@/components/ui/dialog";

type ConfirmDialogProps = {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** When set, the person must type this text before the confirm button works. */
  typeToConfirm?: string;
  busy?: boolean;
  error?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
};

export function ConfirmDialog(props: ConfirmDialogProps) {
  const { title, children, confirmLabel, danger, typeToConfirm, busy, error, onConfirm, onCancel } = props;
  const [typed, setTyped] = useState("");
  const ready = !busy && (typeToConfirm === undefined || typed.trim() === typeToConfirm);

  return (
    <Dialog title={title} onClose={onCancel} testId="confirm-dialog">
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (ready) onConfirm();
        }}
      >
        <div>{children}</div>
        {typeToConfirm !== undefined && (
          <label className="field">
            <span>
              Type <strong>{typeToConfirm}</strong> to confirm
            </span>
            <input
              className="input"
              value={typed}
              onChange={(event) => setTyped(event.target.value)}
              data-testid="confirm-input"
              autoComplete="off"
            />
          </label>
        )}
        {error && <div className="error-text">{error}</div>}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="submit"
            className={danger ? "btn btn-danger" : "btn btn-primary"}
            disabled={!ready}
            data-testid="confirm-button"
          >
            {confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
