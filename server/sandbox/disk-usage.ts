import { lstat, opendir } from "node:fs/promises";
import path from "node:path";

// What a workspace takes on disk: allocated blocks (a sparse file counts what it really uses),
// symbolic links not followed, each hard-linked file once. Written by hand because the packages
// that do this either shell out to `du` (a process per measurement, outside the sandbox) or
// download a native binary at install; an async walk of lstat calls is all this needs.

export async function diskUsageBytes(root: string): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const pending = [root];
  while (pending.length) {
    const dir = pending.pop()!;
    let handle;
    try {
      handle = await opendir(dir);
    } catch {
      continue; // removed while we walked, or unreadable: it takes no space we can see
    }
    for await (const entry of handle) {
      const full = path.join(dir, entry.name);
      const stat = await lstat(full).catch(() => null);
      if (!stat) continue;
      if (stat.nlink > 1 && !stat.isDirectory()) {
        const key = `${stat.dev}:${stat.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      total += stat.blocks * 512;
      if (stat.isDirectory()) pending.push(full);
    }
  }
  return total;
}
