import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect } from "vitest";
import { WorkspaceError, type WorkspaceErrorCode } from "@/server/workspace/errors";

/** A fresh folder under the OS temp dir, removed after the current test. */
export function useTempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "tandem-ws-"));
    made.push(dir);
    return dir;
  };
}

export async function expectCode(
  promise: Promise<unknown>,
  code: WorkspaceErrorCode | WorkspaceErrorCode[],
): Promise<WorkspaceError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a WorkspaceError ${String(code)}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkspaceError);
  const codes = Array.isArray(code) ? code : [code];
  expect(codes).toContain((error as WorkspaceError).code);
  return error as WorkspaceError;
}

// renameat2(RENAME_EXCHANGE) in a loop, as a member's terminal would run it: python3's ctypes, so the
// attacker is a process of its own, not a promise of the test. Syscall numbers per architecture.
const SWAPPER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 316, "aarch64": 276}[os.uname().machine]
a, b, seconds = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
end = time.time() + seconds
swaps = 0
try:
    while time.time() < end:
        if libc.syscall(ctypes.c_long(nr), ctypes.c_int(-100), a, ctypes.c_int(-100), b, ctypes.c_uint(2)) == 0:
            swaps += 1
            if swaps == 1:
                print("go", flush=True)
except KeyboardInterrupt:
    pass
print(swaps, flush=True)
`;

/** Whether the race tests can run here: Linux on x86-64 or arm64 with python3. */
export const canSwapLinks =
  process.platform === "linux" &&
  ["x64", "arm64"].includes(process.arch) &&
  spawnSync("python3", ["-c", "import ctypes"]).status === 0;

/**
 * Starts a separate process that exchanges the entries `a` and `b` (e.g. a folder and a link to a
 * host folder) as fast as it can for at most `seconds`; resolves once it is swapping. `stop()` ends
 * it and resolves with the number of exchanges done.
 */
export async function startLinkSwapper(a: string, b: string, seconds = 20): Promise<{ stop(): Promise<number> }> {
  const child = spawn("python3", ["-c", SWAPPER, a, b, String(seconds)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith("go")) resolve();
    });
    void exited.then(() => resolve());
  });
  return {
    async stop() {
      if (child.exitCode === null) child.kill("SIGINT");
      await exited;
      return Number.parseInt(out.replace(/^go\s*/, ""), 10) || 0;
    },
  };
}
