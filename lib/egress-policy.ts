import { z } from "zod";

// A project's network policy: `off` (no network at all), `allow-list` (only the listed hosts)
// or `open` (any public host). Whatever the policy, the proxy never connects to loopback,
// private, link-local or metadata addresses (see egress-proxy.ts), except those an admin allowed
// as internal hosts: the server's TANDEM_INTERNAL_HOSTS and the project's team's own list.

export const NETWORK_POLICIES = ["off", "allow-list", "open"] as const;
export type NetworkPolicyKind = (typeof NETWORK_POLICIES)[number];
export const networkPolicyKind = z.enum(NETWORK_POLICIES);

export type NetworkPolicy = {
  policy: NetworkPolicyKind;
  allowHosts: string[];
  /** Internal hosts and ranges the server's admin allows every project to reach (ip-policy.ts blockedReason); none when absent. */
  internalHosts?: readonly string[];
  /** Those the project's team allows: office addresses only, never loopback or metadata. */
  teamInternalHosts?: readonly string[];
};

/** A host name, or `*.` and a domain for its subdomains (not the domain itself). */
export const hostPattern = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
    "must be a host name such as registry.npmjs.org, or *.example.com for its subdomains",
  );

/** 4 or 6 for an IP address, 0 for anything else (node:net's isIP, which lib/ may not import). */
function ipVersion(text: string): 0 | 4 | 6 {
  if (z.ipv4().safeParse(text).success) return 4;
  return z.ipv6().safeParse(text).success ? 6 : 0;
}

/**
 * An internal host an admin allows: a host name (`git.office.lan`), `*.` and a domain, an address
 * (`10.20.0.7`, `fd00::7`) or a CIDR range (`10.20.0.0/16`). A range or a domain never lets
 * loopback or metadata addresses through; an exact host or address does (ip-policy.ts).
 */
export const internalHostEntry = z
  .string()
  .trim()
  .toLowerCase()
  .transform((entry) => entry.replace(/^\[(.*)\]$/, "$1"))
  .refine((entry) => {
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) return ipVersion(cidr[1]!) !== 0 && Number(cidr[2]) <= (ipVersion(cidr[1]!) === 4 ? 32 : 128);
    return ipVersion(entry) !== 0 || hostPattern.safeParse(entry).success;
  }, "must be a host name (git.office.lan), *.domain, an address (10.20.0.7) or a range (10.20.0.0/16)");

/** The package registries and git hosts most projects need: what a new project may reach. */
export const DEFAULT_ALLOW_HOSTS = [
  "registry.npmjs.org",
  "registry.yarnpkg.com",
  "repo.yarnpkg.com",
  "pypi.org",
  "files.pythonhosted.org",
  "crates.io",
  "index.crates.io",
  "static.crates.io",
  "proxy.golang.org",
  "sum.golang.org",
  "rubygems.org",
  "index.rubygems.org",
  "repo.maven.apache.org",
  "repo1.maven.org",
  "github.com",
  "codeload.github.com",
  "objects.githubusercontent.com",
  "raw.githubusercontent.com",
  "gitlab.com",
  "bitbucket.org",
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
