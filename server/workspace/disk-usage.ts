import { lstatAtIfExists, readDirBeneath, withFd } from "./beneath";

// What a workspace takes on disk: allocated blocks (a sparse file counts what it really uses),
// symbolic links not followed, each hard-linked file once. Written by hand because the packages
// that do this either shell out to `du` (a process per measurement, outside the sandbox) or
// download a native binary at install; an async walk of lstat calls is all this needs. Each
// folder is opened beneath the root (beneath.ts): a folder the project swaps for a link to a
// host folder meanwhile is not walked (the server would count, and spend its threads on, the host).
// The sandbox's disk budget (server/sandbox/disk-budget.ts) is handed this walk as its `measure`.

export async function diskUsageBytes(root: string): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const pending = [""];
  while (pending.length) {
    const dir = pending.pop()!;
    let listed;
    try {
      listed = await readDirBeneath(root, dir);
    } catch {
      continue; // removed while we walked, unreadable, or now a link leading out: it takes no space we count
    }
    const { dirFd, names } = listed;
    await withFd(dirFd, async () => {
      for (const name of names) {
        const stat = await lstatAtIfExists(dirFd, name).catch(() => null);
        if (!stat) continue;
        if (stat.nlink > 1 && !stat.isDirectory()) {
          const key = `${stat.dev}:${stat.ino}`;
          if (seen.has(key)) continue;
          seen.add(key);
        }
        total += stat.blocks * 512;
        if (stat.isDirectory()) pending.push(dir ? `${dir}/${name}` : name);
      }
    });
  }
  return total;
}
