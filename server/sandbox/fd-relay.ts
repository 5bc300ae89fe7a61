import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// The egress proxy's native module (native/fd-relay.c, built by scripts/build-native.mjs):
// descriptor passing over a Unix socket. Loaded once; when it is missing (not built, not Linux)
// the sandbox gives projects no network and says why at start-up.

export type FdRelay = {
  /** Sends `fd` over the connected Unix socket `socketFd` (the bridge's side). */
  sendFd(socketFd: number, fd: number): void;
  /**
   * Waits for one message on `socketFd` carrying a listening TCP socket and calls back with its
   * descriptor. Anything else is closed and refused. Node must not be reading `socketFd`.
   */
  receiveListener(socketFd: number, timeoutMs: number, callback: (error: Error | undefined, fd: number) => void): void;
};

/** Where the built module is: the sandbox binds it for the bridge (runtime-dir.ts). */
export const FD_RELAY_MODULE = path.resolve(import.meta.dirname, "native/build/Release/fd_relay.node");

let loaded: { relay: FdRelay } | { problem: string } | undefined;

function load(): { relay: FdRelay } | { problem: string } {
  if (loaded) return loaded;
  if (process.platform !== "linux") loaded = { problem: "the egress proxy needs Linux" };
  else if (!existsSync(FD_RELAY_MODULE))
    loaded = { problem: "its native module is not built (run `node scripts/build-native.mjs`)" };
  else {
    try {
      loaded = { relay: createRequire(import.meta.url)(FD_RELAY_MODULE) as FdRelay };
    } catch (error) {
      loaded = { problem: `its native module does not load: ${(error as Error).message}` };
    }
  }
  return loaded;
}

/** The module, or null when it cannot be used here (fdRelayProblem says why). */
export function fdRelay(): FdRelay | null {
  const state = load();
  return "relay" in state ? state.relay : null;
}

export function fdRelayProblem(): string | null {
  const state = load();
  return "problem" in state ? state.problem : null;
}

/** The OS descriptor under a socket Node holds (TCP or Unix), for the native calls. */
export function socketFd(socket: object): number {
  const fd = (socket as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) throw new Error("the socket has no descriptor");
  return fd;
}
