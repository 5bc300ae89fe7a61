import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SetupRunState } from "@/lib/toolchains";
import { createSandbox } from "@/server/sandbox/sandbox";
import { createRedactor, type ProcessSecrets } from "@/server/secrets/redactor";
import { createSetupRuns, type SetupEvent } from "./setup-runs";

// The setup runs' bookkeeping, with the sandbox off (the sandbox's own part is proven through the
// API in server/api/routers/environment.test.ts): a run cut off by a restart, one past its time,
// what a watcher receives.

function runs(options: {
  script: string;
  timeoutMs?: number;
  stored?: SetupRunState | null;
  secrets?: ProcessSecrets;
}) {
  const root = mkdtempSync(path.join(tmpdir(), "tandem-setup-"));
  const saved: SetupRunState[] = [];
  const setup = createSetupRuns({
    sandbox: createSandbox({ host: { mode: "none", masks: [], perProjectUid: false, limits: null } }),
    script: async () => ({ source: "settings", command: ["/bin/bash", "-ec", options.script] }),
    root: async () => root,
    prepare: async () => ["[tandem] prepared"],
    ...(options.secrets ? { secrets: async () => options.secrets! } : {}),
    save: async (_projectId, run) => void saved.push({ ...run }),
    load: async () => options.stored ?? saved.at(-1) ?? null,
    timeoutMs: options.timeoutMs,
  });
  return { setup, saved };
}

describe("setup runs", () => {
  it("streams the output and the end to a watcher, and records the run at its start and end", async () => {
    const { setup, saved } = runs({ script: "echo one; echo two >&2; exit 5" });
    const events: SetupEvent[] = [];
    const stop = setup.watch("p", (event) => events.push(event));
    await setup.start("p", "rebuild");
    const ended = await setup.settled("p");
    stop();
    expect(ended).toMatchObject({ status: "failed", exitCode: 5 });
    const text = events.flatMap((e) => (e.kind === "output" ? [e.text] : [])).join("");
    expect(text).toContain("[tandem] prepared");
    expect(text).toContain("one");
    expect(text).toContain("two");
    expect(events.at(-1)).toMatchObject({ kind: "ended", run: { status: "failed", exitCode: 5 } });
    expect(saved.map((r) => r.status)).toEqual(["running", "failed"]);
  });

  it("stops a run past its time, with what it left running", async () => {
    const { setup } = runs({ script: "sleep 30 & echo started; sleep 30", timeoutMs: 500 });
    await setup.start("p", "rebuild");
    const ended = await setup.settled("p");
    expect(ended?.status).toBe("failed");
    expect(ended?.exitCode).toBe(128 + 9);
    expect(ended?.output).toMatch(/was stopped/);
  });

  it("ends when the script ends, stopping what it left running in the background", async () => {
    const { setup } = runs({ script: "sleep 30 & echo left a job" });
    const started = Date.now();
    await setup.start("p", "rebuild");
    expect(await setup.settled("p")).toMatchObject({ status: "succeeded", exitCode: 0 });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("reports a run recorded as running that nobody runs (the server stopped) as failed", async () => {
    const stored: SetupRunState = {
      status: "running",
      exitCode: null,
      source: "repository",
      trigger: "clone",
      startedAt: new Date(),
      endedAt: null,
      output: "half way",
    };
    const { setup } = runs({ script: "true", stored });
    expect(await setup.status("p")).toMatchObject({
      status: "failed",
      output: expect.stringMatching(/server stopped/),
    });
  });

  it("runs with the project's secrets, and streams and keeps their names in place of their values", async () => {
    const value = "setup-secret-0123456789";
    const secrets = { env: { NPM_TOKEN: value }, redactor: createRedactor([{ name: "NPM_TOKEN", value }]) };
    // The value printed in two writes, as a slow tool would.
    const { setup } = runs({ script: 'printf %s "${NPM_TOKEN:0:6}"; sleep 0.2; echo "${NPM_TOKEN:6}"', secrets });
    const events: SetupEvent[] = [];
    const stop = setup.watch("p", (event) => events.push(event));
    await setup.start("p", "rebuild");
    const ended = await setup.settled("p");
    stop();
    expect(ended?.output).toContain("[secret NPM_TOKEN]");
    expect(ended?.output).not.toContain(value.slice(0, 6));
    const streamed = events.flatMap((e) => (e.kind === "output" ? [e.text] : [])).join("");
    expect(streamed).toContain("[secret NPM_TOKEN]");
    expect(streamed).not.toContain(value.slice(0, 6));
  });
});
