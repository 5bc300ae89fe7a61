import { lookup } from "node:dns/promises";
import net from "node:net";
import { hostAllowed, type NetworkPolicy } from "@/lib/egress-policy";
import { blockedReason } from "./ip-policy";

// Whether a connection may go out, and to which address: the project's allow-list, then the
// address check after DNS (what stops an allowed name that points at 169.254.169.254).

export type Resolved = { address: string; family: number };
export type Resolver = (host: string) => Promise<Resolved[]>;

const systemResolve: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/** A connection the project's policy or the address check refuses: why, and the address when that was the reason. */
export class Refused extends Error {
  constructor(
    message: string,
    readonly address?: string,
  ) {
    super(message);
  }
}

export type AdmitOptions = {
  onlyHosts?: readonly string[];
  testHosts?: ReadonlyMap<string, string>;
  resolve?: Resolver;
};

/**
 * The address a connection to `host` goes to under the project's `policy`, or Refused with the
 * reason: the host must be allowed by the policy, and every address it resolves to must pass the
 * address check (internal hosts only as the admin and the team allow). The caller connects to the
 * address returned, never to the name again, so a second DNS answer cannot differ (rebinding).
 * The egress proxy and the agent's browser (server/tools/browser) decide alike through this.
 */
export async function admitHost(host: string, policy: NetworkPolicy, options: AdmitOptions = {}): Promise<string> {
  const name = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (!hostAllowed(policy, name, options.onlyHosts)) throw new Refused("not on this project's network allow-list");
  const fixed = options.testHosts?.get(name);
  if (fixed) return fixed;
  const addresses = net.isIP(name)
    ? [{ address: name, family: net.isIP(name) }]
    : await (options.resolve ?? systemResolve)(name).catch(() => []);
  if (addresses.length === 0) throw new Refused("no address for this name");
  const allowance = { host: name, entries: policy.internalHosts ?? [], teamEntries: policy.teamInternalHosts };
  for (const a of addresses) {
    const why = blockedReason(a.address, allowance);
    if (why)
      throw new Refused(
        `${name === a.address ? "it is" : `resolves to ${a.address},`} a ${why} address, not an allowed internal host`,
        a.address,
      );
  }
  return addresses[0]!.address;
}

/** Where the refusal of an internal address can be lifted: said to the sandbox's client and in git's errors. */
export const INTERNAL_HOSTS_HINT =
  "The server's admin can allow internal hosts and ranges for every project (TANDEM_INTERNAL_HOSTS), a team owner or admin private addresses for the team's projects (team settings, Internal hosts); loopback and metadata addresses only the server's admin, by exact address or host name";
