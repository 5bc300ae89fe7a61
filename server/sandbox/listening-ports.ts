// Which TCP ports listen in a network namespace, from the kernel's socket tables
// (/proc/net/tcp and tcp6 as seen from inside it; holder-script.ts reads them). A table is
// small (one line per socket) and reading it costs no more than a stat, so polling it every
// few seconds while someone looks at the project is cheaper than any event mechanism the
// kernel offers without privileges (sock_diag netlink needs to be inside the namespace too).

export type ListeningPort = {
  port: number;
  /** Whether it listens on every address of the namespace or on loopback only (both reach the preview). */
  address: "any" | "loopback" | "other";
  /** The socket's inode, which names the process holding it (socket-owner.ts). */
  inode: string;
};

const LISTEN = "0A";

function addressKind(hex: string): ListeningPort["address"] {
  if (/^0+$/.test(hex)) return "any";
  // 127.0.0.0/8 is stored little-endian in /proc/net/tcp: the last byte is 7F.
  if (hex.length === 8) return hex.endsWith("7F") ? "loopback" : "other";
  if (hex === "00000000000000000000000001000000") return "loopback";
  // ::ffff:127.x.x.x
  if (hex.startsWith("0000000000000000FFFF0000") && hex.endsWith("7F")) return "loopback";
  return "other";
}

/** The listening ports of the two tables, each port once (lowest first), without those in `hide`. */
export function listeningPorts(tables: string[], hide: readonly number[] = []): ListeningPort[] {
  const found = new Map<number, ListeningPort>();
  for (const table of tables) {
    for (const line of table.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== LISTEN) continue;
      const [address, portHex] = fields[1]!.split(":");
      const port = Number.parseInt(portHex ?? "", 16);
      if (!Number.isInteger(port) || port <= 0 || hide.includes(port)) continue;
      const kind = addressKind(address ?? "");
      const known = found.get(port);
      if (!known || (known.address !== "any" && kind === "any"))
        found.set(port, { port, address: kind, inode: fields[9] ?? "" });
    }
  }
  return [...found.values()].sort((a, b) => a.port - b.port);
}
