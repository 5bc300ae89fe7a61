import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const include = ["{server,lib,components,scripts,deploy,e2e}/**/*.test.ts"];
// Files that time what they test (a takeover within 10 s, a Ctrl-C answered within 1 s, a stream
// cut within 2 s, leases and heartbeats) or load the whole machine (a fork bomb): they run after
// the others, one at a time, so that no other file's work is measured with them. The eval's
// solutions run many agent turns and checks at once, enough to load two cores.
const alone = [
  "server/cluster/**/*.test.ts",
  "server/restart.test.ts",
  "server/terminal/terminal.test.ts",
  "server/terminal/terminal-ack.test.ts",
  "server/tools/shell.test.ts",
  "server/sandbox/limits.test.ts",
  "server/sandbox/disk-budget.test.ts",
  "server/api/live-access.test.ts",
  "server/api/websocket-access.test.ts",
  "server/api/login-expiry.test.ts",
  "server/workspace/beneath.test.ts",
  "server/workspace/workspace-attacks.test.ts",
  "server/eval/solutions.test.ts",
];
const alias = { "@": fileURLToPath(new URL(".", import.meta.url)) };
const common = { environment: "node", testTimeout: 30_000, hookTimeout: 60_000, pool: "forks" } as const;

export default defineConfig({
  resolve: { alias },
  test: {
    // Once for both groups: one embedded PostgreSQL, a database per test file.
    globalSetup: ["server/test/global-setup.ts"],
    projects: [
      // Most files wait on processes, sockets and the database more than they compute: two at a
      // time even on two cores (where vitest's default is one).
      {
        resolve: { alias },
        test: {
          ...common,
          name: "shared",
          include,
          exclude: alone,
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve: { alias },
        test: { ...common, name: "alone", include: alone, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
