import { isIP } from "node:net";

/**
 * What admins let through the address check: `host` is the name that was asked for (or the
 * address itself); `entries` the server admin's (TANDEM_INTERNAL_HOSTS), `teamEntries` the
 * project's team's: host names, `*.` domains, addresses and CIDR ranges (egress-policy.ts
 * internalHostEntry). A team's entries reach office addresses only, never the server's own
 * loopback or the cloud's metadata: those are the server admin's to open.
 */
export type InternalAllowance = { host: string; entries: readonly string[]; teamEntries?: readonly string[] };

/**
 * Why an address must not be reached from the server, or null when it is a public address or one
 * the admin allowed. A range or a `*.` domain lets through only the office kinds of address
 * (private, carrier-grade NAT, unique-local); loopback, link-local (cloud metadata) and the rest
 * pass only when an entry names them exactly: the address itself, or the exact host name.
 */
export function blockedReason(address: string, allowance?: InternalAllowance): string | null {
  const ip = bare(address);
  const found = classify(ip);
  if (!found || !allowance) return found?.why ?? null;
  const host = allowance.host.toLowerCase().replace(/\.$/, "");
  const bytes = addressBytes(ip);
  const allows = (entry: string) => {
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) return found.internal && !!bytes && inRange(bytes, addressBytes(cidr[1]!), Number(cidr[2]));
    if (isIP(bare(entry))) return !!bytes && sameBytes(bytes, addressBytes(bare(entry)));
    if (entry.startsWith("*.")) return found.internal && host.endsWith(entry.slice(1));
    return entry === host;
  };
  if (allowance.entries.some(allows)) return null;
  if (found.internal && allowance.teamEntries?.some(allows)) return null;
  return found.why;
}

const bare = (address: string) =>
  address
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
    .toLowerCase();

function classify(ip: string): { why: string; internal: boolean } | null {
  const version = isIP(ip);
  const why =
    version === 4 ? blockedV4(ip.split(".").map(Number)) : version === 6 ? blockedV6(ip) : "not an IP address";
  return why === null ? null : { why, internal: INTERNAL_KINDS.has(why) };
}

/** The kinds of address an office network uses, which a range or a domain may allow. */
const INTERNAL_KINDS = new Set(["private (RFC 1918)", "shared carrier-grade NAT (RFC 6598)", "unique-local IPv6"]);

function addressBytes(ip: string): number[] | null {
  const version = isIP(ip);
  if (version === 4) return ip.split(".").map(Number);
  if (version === 6) return hextets(ip).flatMap((h) => [h >> 8, h & 0xff]);
  return null;
}

function sameBytes(a: number[], b: number[] | null): boolean {
  return !!b && a.length === b.length && a.every((x, i) => x === b[i]);
}

function inRange(address: number[], base: number[] | null, bits: number): boolean {
  if (!base || base.length !== address.length || bits > address.length * 8) return false;
  for (let i = 0; i < address.length; i++) {
    const take = Math.max(0, Math.min(8, bits - i * 8));
    const mask = take === 0 ? 0 : (0xff << (8 - take)) & 0xff;
    if ((address[i]! & mask) !== (base[i]! & mask)) return false;
  }
  return true;
}

function inV4(octets: number[], base: number[], bits: number): boolean {
  const value = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
  const prefix = ((base[0]! << 24) | (base[1]! << 16) | (base[2]! << 8) | base[3]!) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (value & mask) === (prefix & mask);
}

const V4_BLOCKS: [number[], number, string][] = [
  [[0, 0, 0, 0], 8, "unspecified ('this network')"],
  [[10, 0, 0, 0], 8, "private (RFC 1918)"],
  [[100, 64, 0, 0], 10, "shared carrier-grade NAT (RFC 6598)"],
  [[127, 0, 0, 0], 8, "loopback"],
  [[169, 254, 0, 0], 16, "link-local (cloud metadata lives here)"],
  [[172, 16, 0, 0], 12, "private (RFC 1918)"],
  [[192, 0, 0, 0], 24, "IETF protocol assignments"],
  [[192, 168, 0, 0], 16, "private (RFC 1918)"],
  [[198, 18, 0, 0], 15, "benchmarking"],
  [[224, 0, 0, 0], 4, "multicast"],
  [[240, 0, 0, 0], 4, "reserved / broadcast"],
];

function blockedV4(octets: number[]): string | null {
  for (const [base, bits, why] of V4_BLOCKS) if (inV4(octets, base, bits)) return why;
  return null;
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail is folded in). */
function hextets(ip: string): number[] {
  let text = ip.toLowerCase();
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const o = dotted[1]!.split(".").map(Number);
    text =
      text.slice(0, -dotted[1]!.length) +
      `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":").filter(Boolean) : [];
  const right = tail ? tail.split(":").filter(Boolean) : [];
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((h) => parseInt(h, 16));
}

function blockedV6(ip: string): string | null {
  const h = hextets(ip);
  const firstFiveZero = h.slice(0, 5).every((x) => x === 0);
  if (h.every((x) => x === 0)) return "unspecified";
  if (h.slice(0, 7).every((x) => x === 0) && h[7] === 1) return "loopback";
  if (firstFiveZero && h[5] === 0xffff) return "IPv4-mapped IPv6";
  if (firstFiveZero && h[5] === 0) return "IPv4-compatible IPv6";
  if ((h[0]! & 0xfe00) === 0xfc00) return "unique-local IPv6";
  if ((h[0]! & 0xffc0) === 0xfe80) return "link-local IPv6";
  if ((h[0]! & 0xffc0) === 0xfec0) return "site-local IPv6";
  if ((h[0]! & 0xff00) === 0xff00) return "multicast IPv6";
  const v4 = (a: number, b: number) => [a >> 8, a & 0xff, b >> 8, b & 0xff];
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) {
    const inner = blockedV4(v4(h[6]!, h[7]!));
    if (inner) return `NAT64 of a ${inner} address`;
  }
  if (h[0] === 0x2002) {
    const inner = blockedV4(v4(h[1]!, h[2]!));
    if (inner) return `6to4 of a ${inner} address`;
  }
  if (h[0] === 0x100 && h.slice(1, 4).every((x) => x === 0)) return "discard-only IPv6";
  return null;
}
