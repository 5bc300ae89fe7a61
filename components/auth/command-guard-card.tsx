"use client";

import "@/components/ui/settings.css";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { commandGuardConfigSchema, DEFAULT_COMMAND_GUARD, type CommandGuardConfig } from "@/lib/command-guard-config";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

type Checked = { ok: true; config: CommandGuardConfig } | { ok: false; problems: string[] };

function check(text: string): Checked {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`Malformed JSON: ${(error as Error).message}`] };
  }
  const parsed = commandGuardConfigSchema.safeParse(json);
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join(".") || "(config)"}: ${i.message}`) };
}

const pretty = (config: CommandGuardConfig) => JSON.stringify(config, null, 2);

/** The destructive-command guard's checks and word lists, as JSON checked while it is typed. */
export function CommandGuardCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.account.commandGuard.queryOptions());
  const [text, setText] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const value = text ?? (current.data ? pretty(current.data) : "");
  const checked = useMemo(() => check(value), [value]);
  const save = useMutation(
    trpc.account.setCommandGuard.mutationOptions({
      onSuccess: () => {
        setText(null);
        setSaved(true);
        void queryClient.invalidateQueries(trpc.account.commandGuard.queryFilter());
      },
    }),
  );

  return (
    <section className="card settings-card" data-testid="command-guard-card">
      <div className="section-title">
        <h2>Destructive-command guard</h2>
        <span className="hint">
          These commands always ask a person, in every approval mode. The agent&apos;s git push always asks.
        </span>
      </div>
      <p className="hint">
        Checks: recursive deletes outside the scratch paths, force pushes and <code>git reset --hard</code> with
        unpushed work, recursive chmod/chown on the workspace root, disk tools, downloads piped into an interpreter,
        dropping a database; <code>alwaysAsk</code> adds prefixes of your own. A command name also matches its dotted
        variants (mkfs matches mkfs.ext4).
      </p>
      <textarea
        className="json-editor"
        spellCheck={false}
        aria-label="Command guard JSON"
        aria-invalid={!checked.ok}
        data-testid="command-guard-json"
        value={value}
        onChange={(e) => (setText(e.target.value), setSaved(false))}
      />
      {!checked.ok && (
        <ul className="problems" role="alert" data-testid="command-guard-problems">
          {checked.problems.map((p, i) => (
            <li key={i}>{p}</li>
          ))}
        </ul>
      )}
      {save.error && <div className="error-text">{errorMessage(save.error)}</div>}
      <div className="row">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="command-guard-save"
          disabled={!checked.ok || text === null || save.isPending}
          onClick={() => checked.ok && save.mutate({ config: checked.config })}
        >
          {save.isPending ? "Saving…" : "Save"}
        </button>
        <button type="button" className="btn btn-ghost" onClick={() => setText(pretty(DEFAULT_COMMAND_GUARD))}>
          Restore defaults
        </button>
        {saved && (
          <span className="hint" data-testid="command-guard-saved">
            Saved. Applies to the next tool call.
          </span>
        )}
      </div>
    </section>
  );
}
