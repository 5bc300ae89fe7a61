import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// Which process holds a listening socket, found only when someone asks (the Ports view's process
// column when the ports change, or Stop): every process's descriptors are read once for the
// socket's inode, which is too costly for a timer. Only a process inside the workspace's network
// namespace counts, so a socket number that means something else elsewhere names nothing.

export type SocketOwner = { pid: number; command: string };

const readOr = (read: () => string) => {
  try {
    return read();
  } catch {
    return null;
  }
};

/** The process inside network namespace `netns` (its inode) holding the socket `inode`, if any. */
export function socketOwner(inode: string, netns: number): SocketOwner | null {
  const wanted = `socket:[${inode}]`;
  const namespace = `net:[${netns}]`;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    if (readOr(() => readlinkSync(`/proc/${entry}/ns/net`)) !== namespace) continue;
    const fds = readOr(() => readdirSync(`/proc/${entry}/fd`).join("\n"));
    if (!fds) continue;
    for (const fd of fds.split("\n")) {
      if (readOr(() => readlinkSync(`/proc/${entry}/fd/${fd}`)) !== wanted) continue;
      const command = readOr(() => readFileSync(`/proc/${entry}/cmdline`, "utf8")) ?? "";
      return { pid: Number(entry), command: command.split("\0").filter(Boolean).join(" ").slice(0, 200) };
    }
  }
  return null;
}
