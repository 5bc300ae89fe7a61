// code-server as a person runs it, for the benchmarks that measure Tandem against it
// (bench:code-server, bench:monorepo): on loopback, no password, a user folder of its own.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CODE_SERVER_NODE } from "./code-server-install";
import { freePort } from "./tandem-server";

/** Starts code-server from `dir` (its package) on `folder`, with settings and extensions under `home`; resolves once it answers. */
export async function startCodeServer(
  dir: string,
  folder: string,
  home: string,
  settings: Record<string, unknown> = {},
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const userData = path.join(home, "user-data");
  mkdirSync(path.join(userData, "User"), { recursive: true });
  writeFileSync(
    path.join(userData, "User", "settings.json"),
    JSON.stringify({
      ...settings,
      "terminal.integrated.gpuAcceleration": "off",
      "workbench.startupEditor": "none",
      "security.workspace.trust.enabled": false,
      "telemetry.telemetryLevel": "off",
    }),
  );
  const child = spawn(
    CODE_SERVER_NODE,
    [
      path.join(dir, "out/node/entry.js"),
      "--auth",
      "none",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--user-data-dir",
      userData,
      "--extensions-dir",
      path.join(home, "extensions"),
      "--disable-telemetry",
      "--disable-update-check",
      folder,
    ],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, HOME: home, SHELL: "/bin/bash" },
      // A process group of its own, stopped whole (stopCodeServer).
      detached: true,
    },
  );
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
  const until = Date.now() + 60_000;
  while (
    !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null) throw new Error(`code-server exited (${child.exitCode}) before it was ready`);
    if (Date.now() > until) throw new Error("code-server did not become ready in a minute");
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, child };
}

/**
 * Stops code-server and the processes it started, and waits for it: SIGTERM to its main process
 * alone left each round's extension host running, orphaned (bench:open leaked two per round).
 */
export async function stopCodeServer(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  await exited;
}
