import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "@/server/env/load-config";
import { CONFIG_VARIABLES } from "@/server/env/variables";
import { composeErrors, kubernetesErrors, readComposeFile, readYamlDocuments } from "./validate-manifests";

// The deployment manifests are what operators copy: they must be valid for their tools, and they
// must set up what a cluster of Tandem instances relies on (one database and secret for all,
// cluster mode, health checks, WebSockets that live for hours, SIGTERM hand-over of turns).

const deployDir = import.meta.dirname;
const k8sDir = path.join(deployDir, "k8s");
// Walking into parsed YAML, whose shape the schema tests below check.
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is walked freely; the schema tests check its shape
type Loose = any;

const k8sFiles = readdirSync(k8sDir).filter((name) => name.endsWith(".yaml") && name !== "kustomization.yaml");
const k8sObjects: Loose[] = k8sFiles.flatMap((name) => readYamlDocuments(path.join(k8sDir, name)));
const byKind = (kind: string): Loose => {
  const found = k8sObjects.filter((object) => object.kind === kind);
  expect(found, `exactly one ${kind} in deploy/k8s`).toHaveLength(1);
  return found[0];
};
/** The object of `kind` named `name` (deploy/k8s has two Deployments and two Services: web and workspace runners). */
const named = (kind: string, name: string): Loose => {
  const found = k8sObjects.find((object) => object.kind === kind && object.metadata.name === name);
  expect(found, `${kind} ${name} in deploy/k8s`).toBeTruthy();
  return found;
};
const compose: Loose = readComposeFile(path.join(deployDir, "compose.yaml"));
// The Tandem instances: the services built from the shared `x-tandem` block's image.
const tandemServices = Object.entries(compose.services as Record<string, Loose>).filter(
  ([, service]) => service.image === compose["x-tandem"].image,
);

/** A .env file's assignments (the format Compose's env_file reads: KEY=value, # comments). */
function readEnvFile(file: string): Record<string, string> {
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
}

const exampleSecret = "0123456789abcdef".repeat(4);

describe("deploy/k8s", () => {
  it("holds only valid Kubernetes objects of the kinds a web tier needs", () => {
    expect(k8sObjects.map((object) => object.kind).sort()).toEqual([
      "Deployment",
      "Deployment",
      "Ingress",
      "PersistentVolumeClaim",
      "Secret",
      "Service",
      "Service",
    ]);
    for (const object of k8sObjects)
      expect(kubernetesErrors(object), `${object.kind} ${object.metadata?.name}`).toEqual([]);
  });

  it("refuses objects the Kubernetes schemas refuse", () => {
    const deployment = structuredClone(named("Deployment", "tandem"));
    deployment.spec.replicas = "three";
    delete deployment.spec.template.spec.containers[0].name;
    const errors = kubernetesErrors(deployment);
    expect(errors.join("\n")).toMatch(/replicas must be integer|must have required property 'name'/);
    expect(kubernetesErrors({ apiVersion: "v1", kind: "ConfigMapp", metadata: { name: "x" } })).toEqual([
      "no Kubernetes schema loaded for v1 ConfigMapp",
    ]);
  });

  it("applies every manifest but the example Secret through kustomization.yaml", () => {
    const kustomization = parse(readFileSync(path.join(k8sDir, "kustomization.yaml"), "utf8"));
    expect([...kustomization.resources].sort()).toEqual(
      k8sFiles.filter((name) => name !== "secret.example.yaml").sort(),
    );
  });

  it("runs three clustered replicas on one database and one secret, sharing the data volume", () => {
    const deployment = named("Deployment", "tandem");
    const claim = byKind("PersistentVolumeClaim");
    const secret = byKind("Secret");
    expect(deployment.spec.replicas).toBe(3);
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    const env = Object.fromEntries(container.env.map((entry: Loose) => [entry.name, entry]));
    expect(env.TANDEM_CLUSTER.value).toBe("1");
    for (const name of ["DATABASE_URL", "BETTER_AUTH_SECRET"]) {
      expect(env[name].valueFrom.secretKeyRef).toEqual({ name: secret.metadata.name, key: name });
      expect(secret.stringData[name]).toBeTruthy();
    }
    expect(claim.spec.accessModes).toEqual(["ReadWriteMany"]);
    const volume = pod.volumes.find((v: Loose) => v.persistentVolumeClaim?.claimName === claim.metadata.name);
    expect(container.volumeMounts.find((m: Loose) => m.name === volume.name).mountPath).toBe(env.TANDEM_DATA_DIR.value);
  });

  it("sets only variables Tandem reads, and they load as a cluster configuration", () => {
    const [container] = named("Deployment", "tandem").spec.template.spec.containers;
    const secret = byKind("Secret");
    const names = container.env.map((entry: Loose) => entry.name);
    expect(names.filter((name: string) => !CONFIG_VARIABLES.includes(name))).toEqual([]);
    const env = Object.fromEntries(
      container.env.map((entry: Loose) => [
        entry.name,
        entry.value ?? secret.stringData[entry.valueFrom.secretKeyRef.key],
      ]),
    );
    const config = loadConfig({ ...env, BETTER_AUTH_SECRET: exampleSecret });
    expect(config).toMatchObject({ cluster: true, bus: "postgres", host: "0.0.0.0", dataDir: "/data" });
    expect(config.databaseUrl).toBe(secret.stringData.DATABASE_URL);
  });

  it("checks health on /api/health at the container's port", () => {
    const [container] = named("Deployment", "tandem").spec.template.spec.containers;
    const port = container.ports.find((p: Loose) => p.name === "http");
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
      expect(container[probe].httpGet, probe).toEqual({ path: "/api/health", port: port.name });
    }
  });

  it("gives a stopping pod time to leave the Service and hand its turns over before it is killed", () => {
    const pod = named("Deployment", "tandem").spec.template.spec;
    const command = pod.containers[0].lifecycle.preStop.exec.command;
    expect(command[0]).toBe("sleep");
    // server/index.ts exits at most 10 s after SIGTERM; SIGKILL must not come before.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(Number(command[1]) + 10);
  });

  it("runs workspace runners on the same database, secret and volume, reached by the web replicas through their Service", () => {
    const runners = named("Deployment", "tandem-workspace-runner");
    const runnerService = named("Service", "tandem-workspace-runner");
    const web = named("Deployment", "tandem").spec.template.spec.containers[0];
    const pod = runners.spec.template.spec;
    const [container] = pod.containers;
    expect(container.args).toEqual(["node", "--import", "tsx", "server/cluster/workspace-runner-main.ts"]);
    expect(container.image).toBe(web.image);
    const env = Object.fromEntries(container.env.map((entry: Loose) => [entry.name, entry]));
    const webEnv = Object.fromEntries(web.env.map((entry: Loose) => [entry.name, entry]));
    for (const name of ["DATABASE_URL", "BETTER_AUTH_SECRET", "TANDEM_CLUSTER", "TANDEM_DATA_DIR", "TANDEM_PUBLIC_URL"])
      expect(env[name], name).toEqual(webEnv[name]);
    expect(
      container.env.map((entry: Loose) => entry.name).filter((name: string) => !CONFIG_VARIABLES.includes(name)),
    ).toEqual([]);
    const volume = pod.volumes.find(
      (v: Loose) => v.persistentVolumeClaim?.claimName === byKind("PersistentVolumeClaim").metadata.name,
    );
    expect(container.volumeMounts.find((m: Loose) => m.name === volume.name).mountPath).toBe(env.TANDEM_DATA_DIR.value);
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"])
      expect(container[probe].httpGet, probe).toEqual({ path: "/api/health", port: "http" });
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
      Number(container.lifecycle.preStop.exec.command[1]) + 10,
    );

    expect(runners.spec.template.metadata.labels).toMatchObject(runnerService.spec.selector);
    expect(runnerService.spec.selector).not.toMatchObject(named("Service", "tandem").spec.selector);
    const runnersUrl = new URL(webEnv.TANDEM_WORKSPACE_RUNNERS_URL.value);
    expect(runnersUrl.hostname).toBe(runnerService.metadata.name);
    expect(Number(runnersUrl.port)).toBe(runnerService.spec.ports[0].port);
    const config = loadConfig({
      ...Object.fromEntries(web.env.filter((e: Loose) => e.value).map((e: Loose) => [e.name, e.value])),
      DATABASE_URL: "postgres://x@db/x",
      BETTER_AUTH_SECRET: exampleSecret,
    });
    expect(config.workspaceRunnersUrl).toBe(runnersUrl.href.replace(/\/$/, ""));
  });

  it("routes the Ingress to the Service and the Service to the pods, with WebSockets kept an hour", () => {
    const deployment = named("Deployment", "tandem");
    const service = named("Service", "tandem");
    const ingress = byKind("Ingress");
    expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(deployment.spec.template.spec.containers[0].ports.map((p: Loose) => p.name)).toContain(
      service.spec.ports[0].targetPort,
    );
    const backend = ingress.spec.rules[0].http.paths[0].backend.service;
    expect(backend).toEqual({ name: service.metadata.name, port: { name: service.spec.ports[0].name } });
    for (const timeout of ["proxy-read-timeout", "proxy-send-timeout"]) {
      expect(
        Number(ingress.metadata.annotations[`nginx.ingress.kubernetes.io/${timeout}`]),
        timeout,
      ).toBeGreaterThanOrEqual(3600);
    }
  });
});

describe("deploy/compose.yaml", () => {
  it("is valid against the Compose Specification", () => {
    expect(composeErrors(compose)).toEqual([]);
  });

  it("refuses a file the Compose Specification refuses", () => {
    const broken = structuredClone(compose);
    broken.services["tandem-1"].enviroment = broken.services["tandem-1"].environment;
    broken.services.postgres.healthcheck.retries = "many";
    broken.services.balancer.healthcheck.interval = "ten seconds";
    const errors = composeErrors(broken).join("\n");
    expect(errors).toMatch(/must NOT have additional properties/);
    expect(errors).toMatch(/retries must be number/);
    expect(errors).toMatch(/balancer\/healthcheck\/interval must match format "duration"/);
  });

  it("runs three clustered instances with the same database, secret file and data volume", () => {
    expect(tandemServices.map(([name]) => name)).toEqual(["tandem-1", "tandem-2", "tandem-3"]);
    const [[, first]] = tandemServices;
    for (const [name, service] of tandemServices) {
      expect(service.environment.TANDEM_CLUSTER, name).toBe("1");
      expect(service.environment.DATABASE_URL, name).toBe(first.environment.DATABASE_URL);
      expect(service.env_file, name).toBe("tandem.env");
      expect(service.volumes, name).toContain(`tandem-data:${service.environment.TANDEM_DATA_DIR}`);
      expect(service.healthcheck.test.join(" "), name).toContain("/api/health");
      expect(service.depends_on.postgres.condition, name).toBe("service_healthy");
    }
    expect(new URL(first.environment.DATABASE_URL).hostname).toBe("postgres");
    expect(Object.keys(compose.services.balancer.depends_on).sort()).toEqual(tandemServices.map(([name]) => name));
  });

  it("publishes TANDEM_PORT (8080 unless set) and gives the instances the public URL on it", () => {
    const publicUrls = (file: Loose) =>
      Object.values(file.services as Record<string, Loose>)
        .map((service) => service.environment?.TANDEM_PUBLIC_URL)
        .filter(Boolean);
    expect(compose.services.balancer.ports).toEqual(["8080:80"]);
    expect(new Set(publicUrls(compose))).toEqual(new Set(["http://localhost:8080"]));
    const on9000: Loose = readComposeFile(path.join(deployDir, "compose.yaml"), { TANDEM_PORT: "9000" });
    expect(on9000.services.balancer.ports).toEqual(["9000:80"]);
    expect(new Set(publicUrls(on9000))).toEqual(new Set(["http://localhost:9000"]));
    expect(composeErrors(on9000)).toEqual([]);
  });

  it("has health checks podman-compose 1.0 runs as written: one shell line each", () => {
    for (const [name, service] of Object.entries(compose.services as Record<string, Loose>))
      expect(service.healthcheck.test, name).toEqual(["CMD-SHELL", expect.any(String)]);
  });

  it("sets only variables Tandem reads, and they load as a cluster configuration", () => {
    const example = readEnvFile(path.join(deployDir, "tandem.env.example"));
    expect(Object.keys(example)).toContain("BETTER_AUTH_SECRET");
    for (const [name, service] of tandemServices) {
      const names = [...Object.keys(service.environment), ...Object.keys(example)];
      expect(
        names.filter((n) => !CONFIG_VARIABLES.includes(n)),
        name,
      ).toEqual([]);
      const config = loadConfig({ ...example, ...service.environment, BETTER_AUTH_SECRET: exampleSecret });
      expect(config).toMatchObject({ cluster: true, bus: "postgres", host: "0.0.0.0", dataDir: "/data" });
    }
  });

  it("balances every instance through nginx with WebSocket upgrades kept an hour", () => {
    const nginx = readFileSync(path.join(deployDir, "nginx.conf"), "utf8");
    const upstreams = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)/gm)].map((match) => `${match[1]}:${match[2]}`);
    expect(upstreams).toEqual(tandemServices.map(([name, service]) => `${name}:${service.environment.PORT}`));
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginx).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
    for (const directive of ["proxy_read_timeout", "proxy_send_timeout"]) {
      const seconds = nginx.match(new RegExp(`${directive} (\\d+)s;`))?.[1];
      expect(Number(seconds), directive).toBeGreaterThanOrEqual(3600);
    }
    expect(compose.services.balancer.volumes).toContain("./nginx.conf:/etc/nginx/nginx.conf:ro");
  });
});

describe("deploy/Dockerfile", () => {
  it("sets only variables Tandem reads and checks health on /api/health", () => {
    const dockerfile = readFileSync(path.join(deployDir, "Dockerfile"), "utf8");
    const envBlock = dockerfile.match(/^ENV NODE_ENV=[\s\S]*?(?=\n\S)/m)?.[0] ?? "";
    const names = [...envBlock.matchAll(/([A-Z_][A-Z0-9_]*)=/g)].map((match) => match[1]);
    expect(names).toEqual(["NODE_ENV", "HOST", "PORT", "TANDEM_DATA_DIR"]);
    expect(names.filter((name) => !CONFIG_VARIABLES.includes(name))).toEqual([]);
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/api\/health/);
    expect(dockerfile).toMatch(/apt-get install[^\n]*bubblewrap/);
  });

  it("starts the server as npm start does: the same environment and Node flags", () => {
    const dockerfile = readFileSync(path.join(deployDir, "Dockerfile"), "utf8");
    const command = JSON.parse(dockerfile.match(/^CMD (\[.*\])$/m)?.[1] ?? "[]") as string[];
    const start = (
      JSON.parse(readFileSync(path.join(deployDir, "..", "package.json"), "utf8")) as { scripts: { start: string } }
    ).scripts.start;
    expect(command.filter((word) => word !== "env").join(" ")).toBe(start);
    // npm start finds `node` in node_modules/.bin, the Node npm installed with Tandem; in the image, `node` is a copy of that one.
    expect(dockerfile).toMatch(
      /^RUN cp "\$\(readlink -f \/app\/node_modules\/\.bin\/node\)" \/usr\/local\/bin\/node\b/m,
    );
  });
});
