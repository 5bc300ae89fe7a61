"use client";

import { useState, type FormEvent } from "react";

export type AuthFields = { name: string; email: string; password: string };

type AuthFormProps = {
  mode: "sign-in" | "sign-up";
  submitLabel: string;
  initialEmail?: string;
  onSubmit: (fields: AuthFields) => Promise<string | null>;
};

/** Email + password form; `onSubmit` resolves to an error message, or null on success. */
export function AuthForm({ mode, submitLabel, initialEmail = "", onSubmit }: AuthFormProps) {
  const [fields, setFields] = useState<AuthFields>({ name: "", email: initialEmail, password: "" });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof AuthFields) => (event: { target: { value: string } }) =>
    setFields((current) => ({ ...current, [key]: event.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const message = await onSubmit(fields).catch(
      () => "Could not reach the server. Check your connection and try again.",
    );
    setBusy(false);
    if (message) setError(message);
  }

  return (
    <form className="stack" onSubmit={submit} data-testid={`${mode}-form`}>
      {mode === "sign-up" && (
        <label className="field">
          <span>Name</span>
          <input
            className="input"
            name="name"
            value={fields.name}
            onChange={set("name")}
            required
            autoComplete="name"
            autoFocus
          />
        </label>
      )}
      <label className="field">
        <span>Email</span>
        <input
          className="input"
          name="email"
          type="email"
          value={fields.email}
          onChange={set("email")}
          required
          autoComplete="email"
          autoFocus={mode === "sign-in"}
        />
      </label>
      <label className="field">
        <span>Password</span>
        <input
          className="input"
          name="password"
          type="password"
          value={fields.password}
          onChange={set("password")}
          required
          minLength={mode === "sign-up" ? 8 : undefined}
          autoComplete={mode === "sign-up" ? "new-password" : "current-password"}
        />
        {mode === "sign-up" && <small className="hint">At least 8 characters.</small>}
      </label>
      {error && (
        <div className="notice notice-error" role="alert" data-testid="auth-error">
          {error}
        </div>
      )}
      <button className="btn btn-primary" type="submit" disabled={busy} data-testid={`${mode}-submit`}>
        {busy ? "Please wait…" : submitLabel}
      </button>
    </form>
  );
}
