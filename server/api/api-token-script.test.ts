import { spawn } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAgentHarness } from "@/server/test/agent-harness";
import { startServer, type RunningServer } from "@/server/start-server";
import { issueApiToken } from "@/server/auth/api-tokens";
import { loadScenario } from "@/e2e/fixtures/model-server/server";

// The script docs/api.md shows, run as CI would run it: a token with the read and run scopes starts
// a session over plain HTTP, waits for the agent's turn (the scripted model) and prints its answer.

let harness: Awaited<ReturnType<typeof createAgentHarness>>;
let server: RunningServer;

beforeAll(async () => {
  harness = await createAgentHarness();
  const services = { ...harness.env.services, config: { ...harness.env.services.config, host: "127.0.0.1", port: 0 } };
  server = await startServer(services, { dir: process.cwd(), pages: false });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await harness?.dispose();
});

function runScript(env: Record<string, string>, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["docs/examples/run-session.mjs", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

it("starts a session with a run token, waits for the turn and prints the agent's answer", async () => {
  harness.model.load(loadScenario("plain-text"));
  const { token } = await issueApiToken(harness.env.services.db, {
    userId: harness.user.id,
    name: "ci",
    scopes: ["read", "run"],
    expiresInDays: 1,
  });
  const result = await runScript({ TANDEM_URL: server.url, TANDEM_TOKEN: token }, [harness.project.id, "Say hello"]);
  expect(result.stderr).toContain("started in");
  expect(result.stdout.trim()).toBe("Hello from the scripted model. All good here.");
  expect(result.code).toBe(0);
}, 60_000);

it("says which scope a token lacks", async () => {
  const { token } = await issueApiToken(harness.env.services.db, {
    userId: harness.user.id,
    name: "read only",
    scopes: ["read"],
    expiresInDays: 1,
  });
  const result = await runScript({ TANDEM_URL: server.url, TANDEM_TOKEN: token }, [harness.project.id, "Say hello"]);
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('session.create: This API token does not have the "run" scope.');
}, 60_000);
