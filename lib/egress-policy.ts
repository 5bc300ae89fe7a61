import { z } from "zod";

// A project's network policy: `off` (no network at all), `allow-list` (only the listed hosts)
// or `open` (any public host). Whatever the policy, the proxy never connects to loopback,
// private, link-local or metadata addresses (see egress-proxy.ts).

export const NETWORK_POLICIES = ["off", "allow-list", "open"] as const;
export type NetworkPolicyKind = (typeof NETWORK_POLICIES)[number];
export const networkPolicyKind = z.enum(NETWORK_POLICIES);

export type NetworkPolicy = { policy: NetworkPolicyKind; allowHosts: string[] };

/** A host name, or `*.` and a domain for its subdomains (not the domain itself). */
export const hostPattern = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "must be a host name such as registry.npmjs.org, or *.example.com for its subdomains");

/** The package registries and git hosts most projects need: what a new project may reach. */
export const DEFAULT_ALLOW_HOSTS = [
  "registry.npmjs.org", "registry.yarnpkg.com", "repo.yarnpkg.com",
  "pypi.org", "files.pythonhosted.org",
  "crates.io", "index.crates.io", "static.crates.io",
  "proxy.golang.org", "sum.golang.org",
  "rubygems.org", "index.rubygems.org",
  "repo.maven.apache.org", "repo1.maven.org",
  "github.com", "codeload.github.com", "objects.githubusercontent.com", "raw.githubusercontent.com",
  "gitlab.com", "bitbucket.org",
];

/**
 * The policy in force for a project that chose `chosen` when the admin permits `permitted`: its
 * choice, or else the most restrictive permitted one (off, then allow-list, then open; the
 * project's own allow-list stays). A project on `open` after the admin rules it out gets `off`
 * when that is permitted; one on `off` after the admin rules that out gets its allow-list,
 * because an admin who rules out `off` wants projects to reach their registries.
 */
export function policyInForce(chosen: NetworkPolicyKind, permitted: readonly NetworkPolicyKind[]): NetworkPolicyKind {
  if (permitted.includes(chosen)) return chosen;
  return NETWORK_POLICIES.find((policy) => permitted.includes(policy)) ?? "off";
}

export function hostMatches(patterns: readonly string[], host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return patterns.some((pattern) => (pattern.startsWith("*.") ? name.endsWith(pattern.slice(1)) : name === pattern));
}

/** Whether the policy lets a connection to `host` start; `onlyHosts` narrows it further (git to one remote). */
export function hostAllowed(policy: NetworkPolicy, host: string, onlyHosts?: readonly string[]): boolean {
  if (policy.policy === "off") return false;
  if (onlyHosts && !hostMatches(onlyHosts, host)) return false;
  return policy.policy === "open" || hostMatches(policy.allowHosts, host);
}
