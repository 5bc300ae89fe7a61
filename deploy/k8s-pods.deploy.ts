import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { parse, stringify } from "yaml";
import { freePort } from "@/scripts/free-port.mjs";
import { until } from "@/server/test/until";
import { logsOf, podman } from "./podman/podman";

// deploy/k8s/ as far as podman runs Kubernetes YAML: `podman kube play` of the volume claim, the
// web Deployment and the workspace runners' Deployment, unchanged, on the image deploy/Dockerfile
// built (npm run test:deploy), with Postgres beside them as the manifests expect it (external).
// Every replica must answer /api/health. What podman does not run (Services, the Ingress, probes
// as Kubernetes runs them, rolling updates) stays checked against the schemas in manifests.test.ts.
// Only podman's port publishing is adapted (replicasOf).

const k8s = path.join(import.meta.dirname, "k8s");
const suffix = `${process.pid}`;
const network = `tandem-k8s-${suffix}`;
const postgres = `tandem-k8s-postgres-${suffix}`;
let played = "";
let tagged = false;
let image = "";

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is walked freely; manifests.test.ts checks its shape
type Loose = Record<string, any>;
const docs = async (file: string): Promise<Loose[]> =>
  (await fs.readFile(path.join(k8s, file), "utf8"))
    .split(/^---$/m)
    .map((doc) => parse(doc) as Loose)
    .filter(Boolean);

/**
 * podman 4.3 publishes every containerPort on the host (Kubernetes does not), so replicas of one
 * Deployment, and the web and runner pods, would all bind host port 3000. Each replica is played
 * as a Deployment of one, named <deployment>-<n>, whose ports get a free loopback host port; the
 * pod template is otherwise the shipped one.
 */
async function replicasOf(deployment: Loose): Promise<Array<{ doc: Loose; container: string; url: string }>> {
  const replicas: Array<{ doc: Loose; container: string; url: string }> = [];
  for (let i = 0; i < deployment.spec.replicas; i++) {
    const doc = structuredClone(deployment);
    doc.metadata.name = `${deployment.metadata.name}-${i}`;
    doc.spec.replicas = 1;
    const [container] = doc.spec.template.spec.containers;
    let url = "";
    for (const port of container.ports) {
      port.hostIP = "127.0.0.1";
      port.hostPort = await freePort();
      if (port.name === "http") url = `http://127.0.0.1:${port.hostPort}`;
    }
    replicas.push({ doc, container: `${doc.metadata.name}-pod-0-${container.name}`, url });
  }
  return replicas;
}

let replicas: Array<{ doc: Loose; container: string; url: string }> = [];

/** The health endpoint, from outside the pod, as a probe asks it. */
const healthy = (url: string) =>
  fetch(`${url}/api/health`).then(
    (response) => response.ok,
    () => false,
  );

beforeAll(async () => {
  image = (await docs("deployment.yaml"))[0]!.spec.template.spec.containers[0].image as string;
  // The manifests name the image as a registry would hold it; here it is the one just built.
  if (
    !(await podman(["image", "exists", image]).then(
      () => true,
      () => false,
    ))
  ) {
    await podman(["tag", "localhost/tandem:local", image]);
    tagged = true;
  }
  await podman(["network", "create", network]);
  await podman([
    "run",
    "-d",
    "--name",
    postgres,
    "--network",
    network,
    "--network-alias",
    "postgres",
    "-e",
    "POSTGRES_USER=tandem",
    "-e",
    "POSTGRES_PASSWORD=tandem",
    "-e",
    "POSTGRES_DB=tandem",
    "docker.io/library/postgres:17",
  ]);
  await until(
    () =>
      podman(["exec", postgres, "pg_isready", "-U", "tandem", "-d", "tandem"]).then(
        () => true,
        () => false,
      ),
    "Postgres",
    60_000,
  );
  // The Secret secret.example.yaml describes, with real values. podman 4.3 reads a secretKeyRef
  // from a podman secret holding the keys as JSON with base64 values.
  const [secret] = await docs("secret.example.yaml");
  const values: Record<string, string> = {
    BETTER_AUTH_SECRET: randomBytes(32).toString("hex"),
    DATABASE_URL: "postgres://tandem:tandem@postgres:5432/tandem",
  };
  expect(Object.keys(secret!.stringData).sort()).toEqual(Object.keys(values).sort());
  const secretFile = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-k8s-")), "secret.json");
  await fs.writeFile(
    secretFile,
    JSON.stringify(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString("base64")]))),
  );
  await podman(["secret", "create", secret!.metadata.name, secretFile]);
  await fs.rm(path.dirname(secretFile), { recursive: true });
  // The manifests kustomization.yaml lists, less the Service and the Ingress (podman runs neither),
  // in one file for kube play: the claim as it is, each Deployment as its replicas (above).
  replicas = [
    ...(await replicasOf((await docs("deployment.yaml"))[0]!)),
    ...(await replicasOf((await docs("workspace-runner.yaml"))[0]!)),
  ];
  played = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-k8s-")), "tandem.yaml");
  await fs.writeFile(
    played,
    [await fs.readFile(path.join(k8s, "pvc.yaml"), "utf8"), ...replicas.map((r) => stringify(r.doc))].join("\n---\n"),
  );
  console.log(await podman(["kube", "play", "--network", network, played], { timeoutMs: 300_000 }));
}, 600_000);

afterAll(async () => {
  if (played) {
    await podman(["kube", "down", played]).catch((error) => console.error(String(error)));
    await fs.rm(path.dirname(played), { recursive: true, force: true });
  }
  for (const claim of await docs("pvc.yaml")) await podman(["volume", "rm", "-f", claim.metadata.name]).catch(() => "");
  await podman(["rm", "-f", "-v", "-t", "0", postgres]).catch(() => "");
  await podman(["network", "rm", "-f", network]).catch(() => "");
  for (const secret of await docs("secret.example.yaml"))
    await podman(["secret", "rm", secret.metadata.name]).catch(() => "");
  // The name only: `podman untag` without a name would strip every name from the image.
  if (tagged) await podman(["untag", image, image]).catch(() => "");
}, 180_000);

describe("deploy/k8s with podman kube play", () => {
  it("starts every replica of both Deployments on the shared claim, each answering /api/health", async () => {
    const containers = replicas.map((r) => r.container);
    onTestFailed(async () => {
      for (const container of containers)
        console.error(`--- ${container} ---\n${(await logsOf(container)).slice(-4000)}`);
    });
    expect(containers).toHaveLength(5); // 3 web replicas, 2 runners
    const started = Date.now();
    for (const { container, url } of replicas) await until(() => healthy(url), `${container} healthy`, 300_000);
    console.log(`healthy: ${containers.join(", ")} (${Math.round((Date.now() - started) / 1000)} s after kube play)`);
    // One volume for all of them, as the ReadWriteMany claim gives them.
    const mounts = await Promise.all(
      containers.map((c) =>
        podman(["inspect", "--format", '{{range .Mounts}}{{if eq .Destination "/data"}}{{.Name}}{{end}}{{end}}', c]),
      ),
    );
    expect(new Set(mounts)).toEqual(new Set(["tandem-data"]));
    // Each web replica started its sandbox (privileged, as the manifests run it); each runner said it is one.
    for (const container of containers) {
      const runner = container.startsWith("tandem-workspace-runner-");
      const said = (runner ? /^.*\(workspace runner\)$/m : /^sandbox: .*$/m).exec(await logsOf(container))?.[0];
      console.log(`${container}: ${said}`);
      expect(said, container).toMatch(runner ? /ready on/ : /^sandbox: bubblewrap as /);
    }
  }, 420_000);
});
