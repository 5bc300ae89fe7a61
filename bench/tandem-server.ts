// A production Tandem on loopback for the browser benchmarks, as `npm start` serves it (after
// `npm run build`), and a first account on it.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "@/scripts/free-port.mjs";

export { freePort };

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * How `npm start` runs the server: the variables and Node flags of package.json's start script
 * (one malloc arena, V8's semi-spaces), so memory and latency are measured as a person runs it.
 */
function npmStart(): { env: Record<string, string>; nodeArgs: string[] } {
  const script: string = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts.start;
  const words = script.split(/\s+/);
  const node = words.indexOf("node");
  const scriptAt = words.indexOf("scripts/start.mjs");
  if (node < 0 || scriptAt < node)
    throw new Error(`package.json's start script is not 'VARS node FLAGS scripts/start.mjs': ${script}`);
  const env = Object.fromEntries(words.slice(0, node).map((word) => word.split("=", 2) as [string, string]));
  return { env, nodeArgs: words.slice(node + 1, scriptAt) };
}

/** Starts scripts/start.mjs as `npm start` does on a free port against `databaseUrl`, and waits until it is ready. `env` adds to or overrides the defaults. */
export async function startTandem(
  dataDir: string,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const start = npmStart();
  const child = spawn(process.execPath, [...start.nodeArgs, "scripts/start.mjs"], {
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      ...process.env,
      ...start.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      TANDEM_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      // A session needs a model; none is called here.
      TANDEM_MODEL: "openai-compatible:bench",
      TANDEM_OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1",
      NEXT_TELEMETRY_DISABLED: "1",
      ...env,
    },
  });
  const until = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Tandem exited (${child.exitCode}) before it was ready`);
    if (Date.now() > until) throw new Error("Tandem did not become ready in 5 minutes");
    const ok = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { base, child };
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function stopTandem(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

/** Signs up the first account (an admin) and returns its login cookie. */
export async function signUp(base: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: "bench@example.com", password: "bench password 1", name: "Bench" }),
  });
  if (!response.ok) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** A tRPC call as a script makes it: the login cookie, no Origin. */
export function api(base: string, cookie: string) {
  return async <T>(kind: "query" | "mutation", procedure: string, input: unknown): Promise<T> => {
    const body = JSON.stringify({ json: input });
    const response =
      kind === "query"
        ? await fetch(`${base}/api/trpc/${procedure}?input=${encodeURIComponent(body)}`, { headers: { cookie } })
        : await fetch(`${base}/api/trpc/${procedure}`, {
            method: "POST",
            headers: { cookie, "content-type": "application/json" },
            body,
          });
    const json = (await response.json()) as { result?: { data?: { json?: T } }; error?: unknown };
    if (!response.ok) throw new Error(`${procedure}: ${JSON.stringify(json.error)}`);
    return json.result!.data!.json!;
  };
}
