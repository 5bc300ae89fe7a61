import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import tls from "node:tls";
import { Agent, setGlobalDispatcher } from "undici";
import { runtimeDir } from "./runtime-dir";

// The certificates Tandem trusts for TLS: the host's store (where a company installs its
// TLS-inspecting proxy's CA with update-ca-certificates) and the admin's TANDEM_EXTRA_CA_CERTS,
// merged into one bundle. Sandboxed tools get it by the standard variables (environment.ts
// caEnv); the server's own connections (web_fetch, MCP, model providers) trust the admin's
// certificates too.

/** Where distributions keep the system's bundle: Debian and Ubuntu, Fedora and RHEL, openSUSE, Alpine. */
const SYSTEM_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/ca-bundle.pem",
  "/etc/ssl/cert.pem",
];

export type TrustStore = {
  /** The system's certificates (Node's own store where the host has no bundle) and the admin's, as PEM. */
  pem: string;
  /** The admin's certificates alone (TANDEM_EXTRA_CA_CERTS), as PEM blocks. */
  extra: string[];
};

export class TrustStoreError extends Error {}

const pemBlocks = (text: string) => text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

/** The host's store with the admin's certificates added; a file that is not PEM certificates is refused with what to do. */
export function loadTrustStore(
  extraFile: string | undefined,
  systemBundles: readonly string[] = SYSTEM_BUNDLES,
): TrustStore {
  const system = systemBundles.find((file) => existsSync(file));
  const base = system ? pemBlocks(readFileSync(system, "utf8")) : [...tls.rootCertificates];
  let extra: string[] = [];
  if (extraFile) {
    let text: string;
    try {
      text = readFileSync(extraFile, "utf8");
    } catch (error) {
      throw new TrustStoreError(
        `TANDEM_EXTRA_CA_CERTS: cannot read ${extraFile} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give the path of a PEM file the server can read.`,
      );
    }
    extra = pemBlocks(text);
    if (extra.length === 0)
      throw new TrustStoreError(
        `TANDEM_EXTRA_CA_CERTS: ${extraFile} holds no PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----).`,
      );
    extra.forEach((block, i) => {
      try {
        new X509Certificate(block);
      } catch (error) {
        throw new TrustStoreError(
          `TANDEM_EXTRA_CA_CERTS: certificate ${i + 1} of ${extraFile} cannot be read (${(error as Error).message}).`,
        );
      }
    });
  }
  return { pem: `${[...base, ...extra].join("\n")}\n`, extra };
}

/** Writes the bundle into the sandboxes' runtime folder (readable by every project's uid) and returns its path. */
export function writeSandboxBundle(store: TrustStore): string {
  const file = path.join(runtimeDir().root, "ca-certificates.crt");
  writeFileSync(file, store.pem, { mode: 0o644 });
  return file;
}

let serverCa: string[] | undefined;

/**
 * Makes this thread's own TLS connections trust the admin's certificates as well: Node's global
 * fetch (model providers, forges), node:https, and guardedAgent (web_fetch, MCP), which asks
 * trustedCa(). Node's default store is kept; the admin's certificates are added to it.
 */
export function trustExtraCertificates(extra: readonly string[]): void {
  if (extra.length === 0) return;
  // Node's store as this process has it (with NODE_EXTRA_CA_CERTS) where Node can say so (22.15+).
  const getCACertificates = (tls as { getCACertificates?: (kind: "default") => string[] }).getCACertificates;
  serverCa = [...(getCACertificates ? getCACertificates("default") : tls.rootCertificates), ...extra];
  https.globalAgent.options.ca = serverCa;
  setGlobalDispatcher(new Agent({ connect: { ca: serverCa } }));
}

/** The certificates the server's own connections trust when an admin added some; undefined: Node's default. */
export function trustedCa(): string[] | undefined {
  return serverCa;
}
