import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getLocal, generateCACertificate, type Mockttp } from "mockttp";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGitHttpServer, type GitHttpServer } from "@/server/test/git-http-server";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { guardedAgent } from "@/server/tools/guarded-fetch";
import { createSandbox, type LoggedConnection } from "./sandbox";
import { loadTrustStore, trustExtraCertificates, TrustStoreError } from "./trust-store";

// A company network that inspects TLS, as the sandboxed tools and the server meet it: mockttp, a
// real TLS-intercepting proxy with its own CA, answers for the registry's name with a certificate
// that CA issued on the spot (npm's packument itself, git's smart HTTP forwarded to a real git
// server). Tools trust it only when the admin adds the CA (TANDEM_EXTRA_CA_CERTS).

let dir: string;
let inspecting: Mockttp;
let git: GitHttpServer;
let caFile: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "tandem-trust-"));
  const ca = await generateCACertificate({ subject: { commonName: "Office TLS inspection CA" } });
  caFile = path.join(dir, "office-ca.pem");
  writeFileSync(caFile, ca.cert);
  git = await startGitHttpServer({ tokens: {} });
  git.createRepository("app", { "README.md": "# app\n" });
  git.makePublic("app");
  inspecting = getLocal({ https: { key: ca.key, cert: ca.cert, defaultDomain: "registry.test" } });
  await inspecting.start();
  await inspecting.forGet("/hello").always().thenReply(200, "hello through inspection");
  await inspecting
    .forGet("/tandem-fixture")
    .always()
    .thenJson(200, {
      name: "tandem-fixture",
      "dist-tags": { latest: "1.2.3" },
      versions: {
        "1.2.3": {
          name: "tandem-fixture",
          version: "1.2.3",
          dist: { tarball: "https://registry.test/tandem-fixture/-/tandem-fixture-1.2.3.tgz", shasum: "0".repeat(40) },
        },
      },
    });
  await inspecting.forAnyRequest().always().thenForwardTo(git.url);
}, 60_000);

afterAll(async () => {
  await inspecting?.stop();
  await git?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the trust store", () => {
  it("adds the admin's certificates to the host's store", () => {
    const store = loadTrustStore(caFile);
    expect(store.extra).toHaveLength(1);
    expect(store.pem).toContain(store.extra[0]!);
    expect(store.pem.match(/BEGIN CERTIFICATE/g)!.length).toBeGreaterThan(10);
  });

  it("refuses a file that is not PEM certificates, saying what to give", () => {
    const bad = path.join(dir, "not-a-cert.pem");
    writeFileSync(bad, "hello\n");
    expect(() => loadTrustStore(bad)).toThrow(TrustStoreError);
    expect(() => loadTrustStore(bad)).toThrow(/holds no PEM certificate/);
    expect(() => loadTrustStore(path.join(dir, "missing.pem"))).toThrow(/cannot read .*missing\.pem \(ENOENT\)/);
  });
});

describeSandboxed("sandboxed tools behind a TLS-inspecting network", () => {
  const logged: LoggedConnection[] = [];
  const sandboxTrusting = (bundlePem: string) => {
    const bundle = path.join(dir, `bundle-${logged.length}-${Date.now()}.pem`);
    writeFileSync(bundle, bundlePem, { mode: 0o644 });
    return createSandbox({
      host: { mode: "bwrap", masks: [], perProjectUid: false, limits: null, caBundle: bundle },
      policies: { get: async () => ({ policy: "allow-list", allowHosts: ["registry.test"] }) },
      testHosts: new Map([["registry.test", "127.0.0.1"]]),
      log: (c) => logged.push(c),
    });
  };

  async function sh(sandbox: ReturnType<typeof createSandbox>, script: string) {
    const workspace = mkdtempSync(path.join(dir, "ws-"));
    const launch = await sandbox.launch({
      workspaceRoot: workspace,
      command: ["/bin/bash", "-c", script],
      newSession: true,
      projectId: "p",
      source: { kind: "terminal", id: "t1" },
    });
    const c = launch.command;
    const out = await new Promise<string>((resolve) =>
      execFile(c.file, c.args, { env: c.env as NodeJS.ProcessEnv, cwd: c.cwd, timeout: 90_000 }, (_e, stdout, stderr) =>
        resolve(stdout + stderr),
      ),
    );
    await launch.close();
    return out;
  }

  const tools = (port: number) => `
    url=https://registry.test:${port}
    node -e "fetch('$url/hello').then((r) => r.text()).then((t) => console.log('node: ' + t), (e) => { console.log('node failed: ' + (e.cause?.code ?? e.message)); process.exit(1); })"; echo "node=$?"
    curl -sS --max-time 20 "$url/hello"; c=$?; echo; echo "curl=$c"
    git ls-remote "$url/app.git" HEAD; echo "git=$?"
    npm view tandem-fixture version --registry "$url/" --fetch-retries=0 2>&1 | tail -1; echo "npm=\${PIPESTATUS[0]}"
    if command -v python3 >/dev/null; then python3 -c "import urllib.request; print('python: ' + urllib.request.urlopen('$url/hello').read().decode())"; echo "python=$?"; fi
  `;

  it("with the admin's CA: Node's fetch, curl, git, npm and Python reach the registry through the egress proxy", async () => {
    logged.length = 0;
    const out = await sh(sandboxTrusting(loadTrustStore(caFile).pem), tools(inspecting.port));
    expect(out).toContain("node: hello through inspection");
    expect(out).toMatch(/^node=0$/m);
    expect(out).toMatch(/^curl=0$/m);
    expect(out).toMatch(/^[0-9a-f]{40}\tHEAD$/m);
    expect(out).toMatch(/^git=0$/m);
    expect(out).toMatch(/^1\.2\.3$/m);
    expect(out).toMatch(/^npm=0$/m);
    if (out.includes("python=")) expect(out).toMatch(/^python=0$/m);
    expect(logged.filter((c) => c.host === "registry.test").map((c) => c.reason)).toEqual(
      expect.arrayContaining([null]),
    );
    expect(logged.filter((c) => c.host === "registry.test" && c.reason)).toEqual([]);
  }, 120_000);

  it("without it every tool fails, and the network log says the TLS handshake failed and why", async () => {
    logged.length = 0;
    const out = await sh(sandboxTrusting(loadTrustStore(undefined).pem), tools(inspecting.port));
    for (const tool of ["node", "curl", "git", "npm"]) expect(out).toMatch(new RegExp(`^${tool}=[1-9]`, "m"));
    const failures = logged.filter((c) => c.host === "registry.test" && c.allowed && c.reason);
    // One row per connection: node, curl, git, npm (twice: it retries once) and Python each failed.
    expect(failures.length).toBe(logged.filter((c) => c.host === "registry.test").length);
    expect(failures.length).toBeGreaterThanOrEqual(4);
    for (const failure of failures)
      expect(failure.reason).toMatch(
        /^TLS (handshake )?failed: .*(unknown_ca|bad_certificate|certificate_unknown|does not trust the server's certificate)/,
      );
  }, 120_000);
});

describe("the server's own connections", () => {
  it("trust the admin's CA: web_fetch and MCP's guarded agent, and Node's fetch (model providers)", async () => {
    const url = `https://localhost:${inspecting.port}/hello`;
    const allow = [`localhost:${inspecting.port}`];
    await expect(request(url, { dispatcher: guardedAgent(allow) })).rejects.toThrow(
      /self-signed|unable to verify|issuer/i,
    );
    trustExtraCertificates(loadTrustStore(caFile).extra);
    const fetched = await request(url, { dispatcher: guardedAgent(allow) });
    expect(await fetched.body.text()).toBe("hello through inspection");
    expect(await (await fetch(url)).text()).toBe("hello through inspection");
  });
});
