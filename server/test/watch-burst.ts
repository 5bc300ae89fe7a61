import { rename } from "node:fs/promises";
import path from "node:path";
import { watchWorkspace } from "@/server/workspace/watch";

// A child process for server/workspace/watch.test.ts, run under a low limit of open files: watches
// <root>, moves the prepared folder <staged> into it (a checkout or an unpacked archive arriving at
// once), and prints how many of its files were reported as added and how many carried a version.
// Usage: node --import tsx server/test/watch-burst.ts <root> <staged> <files>

async function main() {
  const [root, staged, files] = process.argv.slice(2);
  const expected = Number(files);
  const controller = new AbortController();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const added = new Map<string, boolean>();
  const done = (async () => {
    for await (const change of watchWorkspace(root!, { signal: controller.signal, onReady: ready })) {
      if (change.type === "add") added.set(change.path, change.version !== undefined);
      if (added.size >= expected) controller.abort();
    }
  })();
  await isReady;
  await rename(staged!, path.join(root!, "arrived"));
  const timeout = setTimeout(() => controller.abort(), 20_000);
  await done;
  clearTimeout(timeout);
  const versioned = [...added.values()].filter(Boolean).length;
  process.stdout.write(`${JSON.stringify({ added: added.size, versioned })}\n`);
}

if (process.argv[1]?.endsWith("watch-burst.ts")) await main();
