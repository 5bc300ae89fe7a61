import { execFileSync, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAgentHarness } from "@/server/test/agent-harness";
import { startServer, type RunningServer } from "@/server/start-server";
import { issueApiToken, issueTeamToken } from "@/server/auth/api-tokens";
import { loadScenario } from "@/e2e/fixtures/model-server/server";

// The script README.md and docs/api.md show, run as CI would run it: a token with the read and run
// scopes starts a session over plain HTTP (on a new branch of the project's real git repository
// when asked), waits for the agent's turn (the scripted model) and prints its answer.

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

it("starts the session on a new branch with a team's token, and the branch is the session's", async () => {
  const main = harness.env.services.files.pathOf(harness.project.id);
  await harness.env.services.files.open(harness.project.id);
  await writeFile(path.join(main, "README.md"), "# Agent test\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "safe.directory=*", ...args], {
      cwd: main,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("-c", "user.name=Ada", "-c", "user.email=ada@example.com", "commit", "-qm", "first");
  harness.model.load(loadScenario("plain-text"));
  const { token } = await issueTeamToken(harness.env.services.db, {
    teamId: harness.project.teamId,
    name: "ci",
    scopes: ["read", "run"],
    expiresInDays: 1,
  });
  const result = await runScript({ TANDEM_URL: server.url, TANDEM_TOKEN: token, TANDEM_BRANCH: "ci/say-hello" }, [
    harness.project.id,
    "Say hello",
  ]);
  expect(result.stderr).toContain("on branch ci/say-hello");
  expect(result.stdout.trim()).toBe("Hello from the scripted model. All good here.");
  expect(result.code).toBe(0);
  const branches = execFileSync("git", ["-c", "safe.directory=*", "branch", "--list", "ci/say-hello"], {
    cwd: main,
    encoding: "utf8",
  });
  expect(branches).toContain("ci/say-hello");
}, 90_000);

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
