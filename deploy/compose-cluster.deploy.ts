import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import type { Scenario } from "@/e2e/fixtures/model-server/server";
import { terminalSocketUrl } from "@/lib/terminal-protocol";
import { foldTranscript } from "@/lib/session-transcript";
import type { LiveLog, SessionEvent } from "@/lib/session-events";
import { freePort } from "@/scripts/free-port.mjs";
import { connect, signUp } from "@/server/test/cluster-client";
import { readLog } from "@/server/test/cluster-instances";
import { until } from "@/server/test/until";
import { compose, logsOf, podman, publishedPort } from "./podman/podman";

// deploy/compose.yaml as shipped, run with podman-compose on the image deploy/Dockerfile builds
// (npm run test:deploy builds both first): three instances, Postgres and nginx. Everything below
// goes through nginx as a browser would: sign-up, a project, a terminal whose sandbox has node,
// npm and python3, and an agent turn whose instance is killed mid-turn and that another finishes.
// The scripted model server runs in a container of its own on the cluster's network.

const here = import.meta.dirname;
const project = `tandem-deploy-${process.pid}`;
const TANDEM_IMAGE = "localhost/tandem:local";
const INSTANCES = ["tandem-1", "tandem-2", "tandem-3"].map((service) => `${project}_${service}_1`);
const POSTGRES = `${project}_postgres_1`;
const BALANCER = `${project}_balancer_1`;
const MODEL = `${project}_model`;

let stage: string;
let composeFile: string;
let port: number;
let base: string;
let control: string;

async function modelControl(route: string, body?: unknown) {
  const response = await fetch(`${control}${route}`, {
    method: body ? "POST" : "GET",
    headers: { "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`model server ${route}: ${response.status} ${await response.text()}`);
  return response.json();
}

const sql = (query: string) => podman(["exec", POSTGRES, "psql", "-U", "tandem", "-d", "tandem", "-tAc", query]);

beforeAll(async () => {
  // The shipped compose file and nginx.conf, byte for byte, beside an env file of the test's own
  // (a deploy/tandem.env of the operator's is left alone). The image is built already, so the
  // build context the file names is not needed here.
  stage = await fs.mkdtemp(path.join(os.tmpdir(), "tandem-deploy-"));
  composeFile = path.join(stage, "compose.yaml");
  await fs.copyFile(path.join(here, "compose.yaml"), composeFile);
  await fs.copyFile(path.join(here, "nginx.conf"), path.join(stage, "nginx.conf"));
  await fs.writeFile(
    path.join(stage, "tandem.env"),
    [
      `BETTER_AUTH_SECRET=${randomBytes(32).toString("hex")}`,
      "TANDEM_MODEL=openai-compatible:scripted",
      "TANDEM_OPENAI_COMPATIBLE_BASE_URL=http://model:4000/v1",
      "TANDEM_OPENAI_COMPATIBLE_API_KEY=test",
      "",
    ].join("\n"),
  );
  port = await freePort();
  base = `http://localhost:${port}`;
  console.log(await compose(composeFile, project, ["up", "-d", "--no-build"], { TANDEM_PORT: String(port) }));
  await podman([
    "run",
    "-d",
    "--name",
    MODEL,
    "--network",
    `${project}_default`,
    "--network-alias",
    "model",
    "--publish",
    "127.0.0.1::4001",
    TANDEM_IMAGE,
    "node",
    "--import",
    "tsx",
    "e2e/fixtures/model-server/cli.ts",
    "--host",
    "0.0.0.0",
    "--port",
    "4000",
    "--control-port",
    "4001",
  ]);
  control = `http://127.0.0.1:${await publishedPort(MODEL, 4001)}`;
  await until(
    () =>
      modelControl("/health").then(
        () => true,
        () => false,
      ),
    "the model server",
    60_000,
  );
  await until(
    async () => (await fetch(`${base}/api/health`).catch(() => null))?.ok === true,
    "the cluster's health through nginx",
    300_000,
  );
  // Each instance's own health check (the compose file's, run by podman), not only the balancer's.
  for (const instance of INSTANCES)
    await until(
      () =>
        podman(["healthcheck", "run", instance]).then(
          () => true,
          () => false,
        ),
      `${instance} healthy`,
      120_000,
    );
  // What each instance said at start-up of its sandbox: bubblewrap, not a fallback.
  for (const instance of INSTANCES) {
    const said = /^sandbox: .*$/m.exec(await logsOf(instance))?.[0] ?? "(no sandbox line)";
    console.log(`${instance}: ${said}`);
    expect(said).toMatch(/^sandbox: bubblewrap as /);
  }
}, 600_000);

afterAll(async () => {
  if (!composeFile) return;
  await podman(["rm", "-f", "-v", "-t", "0", MODEL]).catch(() => "");
  await compose(composeFile, project, ["down", "-v", "-t", "5"]).catch((error) => console.error(String(error)));
  // podman-compose 1.0 leaves the network it made.
  await podman(["network", "rm", "-f", `${project}_default`]).catch(() => "");
  await fs.rm(stage, { recursive: true, force: true });
}, 180_000);

let failed = false;
const dumpOnFailure = () =>
  onTestFailed(async () => {
    if (failed) return;
    failed = true;
    for (const container of [...INSTANCES, BALANCER, POSTGRES, MODEL])
      console.error(`--- ${container} ---\n${(await logsOf(container)).slice(-6000)}`);
  });

let cookie = "";
let projectId = "";

describe("deploy/compose.yaml, run with podman-compose, through nginx", () => {
  it("signs up, makes a project and opens a terminal whose sandbox has node, npm and python3", async () => {
    dumpOnFailure();
    cookie = await signUp(base, "deploy@example.com", "Dee");
    const client = connect(base, { cookie });
    projectId = (await client.trpc.project.create.mutate({ name: "Deployed" })).id;
    const terminalId = (await client.trpc.terminal.create.mutate({ projectId, cols: 200, rows: 30 })).id;
    const url = terminalSocketUrl({ protocol: "http:", host: `localhost:${port}` }, projectId, terminalId);
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(url, { headers: { cookie, origin: base } });
      socket.on("open", () => resolve(socket));
      socket.on("unexpected-response", (_req, res) => reject(new Error(`terminal upgrade refused: ${res.statusCode}`)));
    });
    let output = "";
    ws.on("message", (data, binary) => {
      if (binary) output += data.toString();
    });
    ws.send(
      JSON.stringify({
        type: "input",
        data: 'echo "node $(node -v) npm $(npm -v) $(python3 -V) in $(pwd) as uid $(id -u)"; echo done-$((40+2))\r',
      }),
    );
    await until(() => output.includes("done-42"), "the terminal's answer", 60_000);
    ws.close();
    client.close();
    const line = /node (\S+) npm (\S+) Python (\S+) in (\S+) as uid (\d+)/.exec(output);
    console.log(`terminal: ${line?.[0]}`);
    expect(line, output).not.toBeNull();
    const [, node, npm, python, cwd, uid] = line!;
    expect(node).toMatch(/^v24\./); // the Node Tandem runs on, copied out of /app, which the sandbox masks
    expect(npm).toMatch(/^11\./);
    expect(python).toMatch(/^3\./);
    expect(cwd).toBe("/workspace");
    expect(Number(uid)).toBeGreaterThan(0); // the project's own uid, not the server's root
  }, 120_000);

  it("finishes an agent turn on another instance when the one running it is killed mid-turn", async () => {
    dumpOnFailure();
    const client = connect(base, { cookie });
    await client.trpc.agent.updateSettings.mutate({ projectId, approvalMode: "yolo" });
    const scenario: Scenario = {
      replies: [
        {
          match: "Build the notes",
          toolCalls: [{ id: "call_notes", name: "shell", arguments: { command: "echo started >> steps.txt" } }],
        },
        { match: "Exit code: 0", text: "Writing the notes now, slowly and at length ", delayMs: 15, hang: true },
        { match: "Also list the steps", text: "Continued and finished." },
      ],
    };
    await modelControl("/scenario", scenario);
    const session = await client.trpc.session.create.mutate({ projectId });
    await client.trpc.session.send.mutate({ sessionId: session.id, text: "Build the notes" });
    await until(
      async () => ((await modelControl("/requests")) as unknown[]).length >= 2,
      "the model's second step",
      60_000,
    );
    const owner = await sql(`SELECT "ownerId" FROM turn_job WHERE "sessionId" = '${session.id}'`);
    const hostnames = await Promise.all(
      INSTANCES.map((c) => podman(["inspect", "--format", "{{.Config.Hostname}}", c])),
    );
    const holder = INSTANCES[hostnames.findIndex((h) => owner.startsWith(`${h}:`))];
    expect(holder, `turn owner ${owner} among ${hostnames.join(", ")}`).toBeDefined();
    await new Promise((r) => setTimeout(r, 300)); // some text streamed and stored
    // Through nginx, to whichever instance: left for the running turn to read.
    await client.trpc.session.send.mutate({ sessionId: session.id, text: "Also list the steps" });

    const killedAt = Date.now();
    await podman(["kill", "--signal", "KILL", holder!]);
    const others = INSTANCES.filter((c) => c !== holder);
    let taker = "";
    await until(
      async () => {
        for (const other of others)
          if ((await logsOf(other)).includes(`took over the turn of session ${session.id}`)) taker = other;
        return taker !== "";
      },
      "another instance to take the turn over",
      20_000,
    );
    console.log(`killed ${holder}; ${taker} took the turn over after ${Date.now() - killedAt} ms`);

    const of = <T extends SessionEvent["type"]>(log: LiveLog, type: T) =>
      log.events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);
    const log = await readLog(
      client,
      session.id,
      (l) => of(l, "turn_finished").length > 0 && l.events.at(-1)?.type === "status",
      90_000,
    );
    client.close();
    expect(log.events.map((e) => e.seq).every((seq, i) => seq === i + 1)).toBe(true);
    expect(of(log, "turn_started")).toHaveLength(1);
    expect(of(log, "tool_call")).toHaveLength(1);
    expect(of(log, "tool_result")).toHaveLength(1);
    expect(of(log, "turn_finished").map((e) => e.payload.reason)).toEqual(["completed"]);
    const last = foldTranscript(log.events).items.at(-1);
    expect(last).toMatchObject({ kind: "assistant", text: "Continued and finished." });
    // The shell command ran once, on the shared volume every instance mounts (in the project's
    // tree or the session's own worktree).
    const steps = await podman([
      "exec",
      taker,
      "sh",
      "-c",
      `find /data/workspaces/${projectId} /data/worktrees/${projectId} -name steps.txt -exec cat {} + 2>/dev/null; true`,
    ]);
    expect(steps).toBe("started");
    console.log(
      `turn: ${of(log, "turn_finished").length} finished (${log.events.length} events), last: "${"text" in last! ? last.text : ""}"`,
    );
  }, 240_000);
});
