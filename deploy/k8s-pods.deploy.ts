import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { parse } from "yaml";
import { until } from "@/server/test/until";
import { logsOf, podman } from "./podman/podman";

// deploy/k8s/ as far as podman runs Kubernetes YAML: `podman kube play` of the volume claim, the
// web Deployment and the workspace runners' Deployment, unchanged, on the image deploy/Dockerfile
// built (npm run test:deploy), with Postgres beside them as the manifests expect it (external).
// Every replica must answer /api/health. What podman does not run (Services, the Ingress, probes
// as Kubernetes runs them, rolling updates) stays checked against the schemas in manifests.test.ts.

const k8s = path.join(import.meta.dirname, "k8s");
const suffix = `${process.pid}`;
const network = `tandem-k8s-${suffix}`;
const postgres = `tandem-k8s-postgres-${suffix}`;
let played = "";
let tagged = false;

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is walked freely; manifests.test.ts checks its shape
type Loose = Record<string, any>;
const docs = async (file: string): Promise<Loose[]> =>
  (await fs.readFile(path.join(k8s, file), "utf8"))
    .split(/^---$/m)
    .map((doc) => parse(doc) as Loose)
    .filter(Boolean);

/** Each replica's container, as podman kube play names it: <deployment>-pod-<n>-<container>. */
async function replicaContainers(): Promise<string[]> {
  const names: string[] = [];
  for (const file of ["deployment.yaml", "workspace-runner.yaml"])
    for (const deployment of await docs(file))
      for (let i = 0; i < deployment.spec.replicas; i++)
        for (const container of deployment.spec.template.spec.containers)
          names.push(`${deployment.metadata.name}-pod-${i}-${container.name}`);
  return names;
}

const healthy = (container: string) =>
  podman([
    "exec",
    container,
    "node",
    "-e",
    "fetch('http://127.0.0.1:3000/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))",
  ]).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  const image = (await docs("deployment.yaml"))[0]!.spec.template.spec.containers[0].image as string;
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
  // The manifests as kustomization.yaml lists them, less the Ingress (no controller here), in one
  // file for kube play; podman ignores the Services.
  played = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-k8s-")), "tandem.yaml");
  const files = ["pvc.yaml", "deployment.yaml", "workspace-runner.yaml", "service.yaml"];
  await fs.writeFile(
    played,
    (await Promise.all(files.map((f) => fs.readFile(path.join(k8s, f), "utf8")))).join("\n---\n"),
  );
  console.log(await podman(["kube", "play", "--network", network, played], { timeoutMs: 300_000 }));
}, 600_000);

afterAll(async () => {
  if (played) {
    await podman(["kube", "down", played]).catch((error) => console.error(String(error)));
    await fs.rm(path.dirname(played), { recursive: true, force: true });
  }
  for (const claim of await docs("pvc.yaml")) await podman(["volume", "rm", "-f", claim.metadata.name]).catch(() => "");
  await podman(["rm", "-f", "-t", "0", postgres]).catch(() => "");
  await podman(["network", "rm", "-f", network]).catch(() => "");
  for (const secret of await docs("secret.example.yaml"))
    await podman(["secret", "rm", secret.metadata.name]).catch(() => "");
  if (tagged) await podman(["untag", "localhost/tandem:latest"]).catch(() => "");
}, 180_000);

describe("deploy/k8s with podman kube play", () => {
  it("starts every replica of both Deployments on the shared claim, each answering /api/health", async () => {
    const containers = await replicaContainers();
    onTestFailed(async () => {
      for (const container of containers)
        console.error(`--- ${container} ---\n${(await logsOf(container)).slice(-4000)}`);
    });
    expect(containers).toHaveLength(5); // 3 web replicas, 2 runners
    const started = Date.now();
    for (const container of containers) await until(() => healthy(container), `${container} healthy`, 300_000);
    console.log(`healthy: ${containers.join(", ")} (${Math.round((Date.now() - started) / 1000)} s)`);
    // One volume for all of them, as the ReadWriteMany claim gives them.
    const mounts = await Promise.all(
      containers.map((c) =>
        podman(["inspect", "--format", '{{range .Mounts}}{{if eq .Destination "/data"}}{{.Name}}{{end}}{{end}}', c]),
      ),
    );
    expect(new Set(mounts)).toEqual(new Set(["tandem-data"]));
  }, 420_000);
});
