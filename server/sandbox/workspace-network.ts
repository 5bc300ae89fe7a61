import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, fstatSync, openSync } from "node:fs";
import type net from "node:net";
import type { Readable } from "node:stream";
import type { EgressListener } from "./egress-proxy";
import { BRIDGE_PORT, NODE, sandboxCommand, type SandboxedCommand, type SandboxHost } from "./launcher";
import { type ListeningPort, listeningPorts } from "./listening-ports";
import { runtimeDir } from "./runtime-dir";
import { type SocketOwner, socketOwner } from "./socket-owner";

// One network namespace per workspace directory: the agent's shell calls, its background jobs,
// terminals and MCP stdio servers of a workspace all join it, so a server one of them starts is
// reachable from the others, and from the preview, and from nothing else (each other workspace
// has its own). Its egress bridge is made once, when the namespace is, and every process in it
// uses the same egress listener with credentials of its own (egress-proxy.ts's client()).
//
// The namespace is made by a holder process (holder-script.ts) sandboxed like the rest, in a
// network namespace of its own, and the server keeps an open descriptor of that namespace: the
// descriptor, not a pid, is what later processes join (nsenter opens /proc/<server>/fd/<n>), so a
// pid reused after the holder died can never put a process into someone else's network. The
// descriptor is checked against the namespace the holder itself names before it is trusted. A
// holder that dies is started again inside the same namespace when next needed; the namespace
// outlives it as long as the descriptor is open. The namespace is let go a while after the last
// process of the workspace has exited (IDLE_MS), so back-to-back shell calls do not each make one.
// Joining another namespace takes root (setns), so this is used only by a server running as root
// (sandbox.ts); otherwise every process keeps a network of its own, as before.

const HOLDER = "/run/tandem/holder.cjs";
/** How long a namespace with no process left is kept for the next one. */
const IDLE_MS = 30_000;
/** How long a holder has to start and answer. */
const HOLDER_TIMEOUT_MS = 15_000;

export type WorkspaceNetworksDeps = {
  host: SandboxHost;
  /** The egress listener of a new namespace (the project's policy), or undefined when it gets no network. */
  openEgress(projectId: string): EgressListener | undefined;
  idleMs?: number;
};

export type NetworkLease = {
  /** What `nsenter --net=` opens to join the namespace. */
  path: string;
  egress: EgressListener | undefined;
  release(): void;
};

export interface WorkspaceNetworks {
  /** The workspace's namespace, made on first use; held until release(). */
  acquire(workspaceRoot: string, projectId: string): Promise<NetworkLease>;
  /** The TCP ports listening in the workspace's namespace, with the process holding each; none when it has no namespace now. */
  ports(workspaceRoot: string): Promise<WorkspacePort[]>;
  /** Ends (SIGTERM) the process listening on `port` in the workspace; false when none does. */
  stop(workspaceRoot: string, port: number): Promise<boolean>;
  /** A connection to `port` on the namespace's loopback (127.0.0.1, then ::1). */
  connect(workspaceRoot: string, port: number): Promise<net.Socket>;
  close(): Promise<void>;
}

export class NoWorkspaceNetworkError extends Error {}

export type WorkspacePort = ListeningPort & { process: string | null };

type Reply = { id?: number; kind?: string; error?: string; netns?: number; tcp?: string; tcp6?: string };

type Holder = {
  child: ChildProcess;
  ask(message: object): Promise<{ reply: Reply; handle: unknown }>;
};

type Network = {
  refs: number;
  fd: number;
  netns: number;
  path: string;
  egress: EgressListener | undefined;
  holder: Promise<Holder> | undefined;
  idle?: NodeJS.Timeout;
  /** Who holds each listening socket seen, looked up once per socket (socket-owner.ts). */
  owners: Map<string, SocketOwner | null>;
};

export function createWorkspaceNetworks(deps: WorkspaceNetworksDeps): WorkspaceNetworks {
  const networks = new Map<string, Promise<Network>>();
  const idleMs = deps.idleMs ?? IDLE_MS;
  const binds = () => [
    { from: runtimeDir().holder, to: HOLDER },
    { from: process.execPath, to: NODE },
  ];

  /** Starts a holder; `join` puts it into an existing namespace, else it makes one (and the bridge). */
  function startHolder(
    workspaceRoot: string,
    options: { join?: string; egress?: EgressListener },
  ): { command: SandboxedCommand; started: Promise<{ holder: Holder; netns: number; childPid?: number }> } {
    const command = sandboxCommand(deps.host, {
      workspaceRoot,
      command: [NODE, HOLDER],
      newSession: true,
      ...(options.join ? { joinNetwork: options.join } : { infoFd: 4 }),
      egressSocket: options.egress?.socketPath,
      // The bridge binds node itself when there is an egress socket.
      readOnlyBinds: options.egress ? binds().slice(0, 1) : binds(),
    });
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "ignore", "pipe", "ipc", options.join ? "ignore" : "pipe"],
      uid: command.uid,
      gid: command.gid,
    });
    const waiting = new Map<number, (answer: { reply: Reply; handle: unknown }) => void>();
    let nextId = 0;
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    const started = new Promise<{ holder: Holder; netns: number; childPid?: number }>((resolve, reject) => {
      let childPid: number | undefined;
      let netns: number | undefined;
      const timer = setTimeout(() => fail(new Error("it did not answer in time")), HOLDER_TIMEOUT_MS);
      const fail = (error: Error) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new Error(`The workspace's network could not start: ${error.message}${stderr ? `\n${stderr}` : ""}`));
      };
      const holder: Holder = {
        child,
        ask: (message) =>
          new Promise((answer, refuse) => {
            if (!child.connected) return refuse(new Error("the workspace's network holder is gone"));
            const id = ++nextId;
            waiting.set(id, answer);
            child.send({ ...message, id }, (error) => {
              if (!error) return;
              waiting.delete(id);
              refuse(error);
            });
          }),
      };
      const maybeDone = () => {
        if (netns === undefined || (!options.join && childPid === undefined)) return;
        clearTimeout(timer);
        resolve({ holder, netns, childPid });
      };
      if (!options.join) {
        let info = "";
        const infoPipe = child.stdio[4] as Readable;
        infoPipe.setEncoding("utf8");
        infoPipe.on("data", (text: string) => {
          info += text;
          try {
            const pid = (JSON.parse(info) as { "child-pid"?: unknown })["child-pid"];
            if (typeof pid === "number") childPid = pid;
          } catch {
            return;
          }
          maybeDone();
        });
      }
      child.on("message", (reply: Reply, handle: unknown) => {
        if (reply?.kind === "ready" && typeof reply.netns === "number") {
          netns = reply.netns;
          return maybeDone();
        }
        const answer = typeof reply?.id === "number" ? waiting.get(reply.id) : undefined;
        if (!answer) return;
        waiting.delete(reply.id!);
        answer({ reply, handle });
      });
      child.on("error", fail);
      child.on("exit", (code, signal) => {
        fail(new Error(`the holder exited (${signal ?? `code ${code}`})`));
        for (const answer of waiting.values())
          answer({ reply: { error: "the workspace's network holder exited" }, handle: undefined });
        waiting.clear();
        command.release?.();
      });
    });
    return { command, started };
  }

  async function make(workspaceRoot: string, projectId: string): Promise<Network> {
    const egress = deps.openEgress(projectId);
    try {
      const { started } = startHolder(workspaceRoot, { egress });
      const { holder, netns, childPid } = await started;
      const fd = openSync(`/proc/${childPid}/ns/net`, "r");
      // The pid was read before the namespace was opened: if the holder died in between and the
      // pid went to another process, the namespace is not the one the holder reported.
      if (fstatSync(fd).ino !== netns) {
        closeSync(fd);
        holder.child.kill("SIGKILL");
        throw new Error("The workspace's network could not start: its holder went away as it started; try again.");
      }
      const network: Network = {
        refs: 0,
        fd,
        netns,
        path: `/proc/${process.pid}/fd/${fd}`,
        egress,
        holder: Promise.resolve(holder),
        owners: new Map(),
      };
      watchHolder(network, holder);
      return network;
    } catch (error) {
      await egress?.close();
      throw error;
    }
  }

  function watchHolder(network: Network, holder: Holder) {
    holder.child.once("exit", () => {
      if (network.holder) void network.holder.then((current) => current === holder && (network.holder = undefined));
    });
  }

  /** The namespace's holder, started again inside it when the last one died. */
  function holderOf(workspaceRoot: string, network: Network): Promise<Holder> {
    if (network.holder) return network.holder;
    const { started } = startHolder(workspaceRoot, { join: network.path });
    network.holder = started.then(({ holder, netns }) => {
      if (netns !== network.netns) {
        holder.child.kill("SIGKILL");
        throw new Error("The workspace's network holder started in another namespace.");
      }
      watchHolder(network, holder);
      return holder;
    });
    network.holder.catch(() => (network.holder = undefined));
    return network.holder;
  }

  async function dispose(workspaceRoot: string, network: Network) {
    networks.delete(workspaceRoot);
    const holder = await network.holder?.catch(() => undefined);
    holder?.child.kill("SIGKILL");
    closeSync(network.fd);
    await network.egress?.close();
  }

  async function listening(workspaceRoot: string, network: Network): Promise<ListeningPort[]> {
    const { reply } = await (await holderOf(workspaceRoot, network)).ask({ kind: "tables" });
    if (reply.error) throw new Error(reply.error);
    return listeningPorts([reply.tcp ?? "", reply.tcp6 ?? ""], [BRIDGE_PORT]);
  }

  async function existing(workspaceRoot: string): Promise<Network | undefined> {
    return networks.get(workspaceRoot)?.catch(() => undefined);
  }

  return {
    async acquire(workspaceRoot, projectId) {
      let pending = networks.get(workspaceRoot);
      if (!pending) {
        pending = make(workspaceRoot, projectId);
        networks.set(workspaceRoot, pending);
        pending.catch(() => networks.get(workspaceRoot) === pending && networks.delete(workspaceRoot));
      }
      const network = await pending;
      network.refs++;
      clearTimeout(network.idle);
      let released = false;
      return {
        path: network.path,
        egress: network.egress,
        release() {
          if (released) return;
          released = true;
          if (--network.refs > 0) return;
          network.idle = setTimeout(() => void dispose(workspaceRoot, network), idleMs);
          network.idle.unref();
        },
      };
    },

    async ports(workspaceRoot) {
      const network = await existing(workspaceRoot);
      if (!network) return [];
      const ports = await listening(workspaceRoot, network);
      const seen = new Set(ports.map((p) => p.inode));
      for (const inode of network.owners.keys()) if (!seen.has(inode)) network.owners.delete(inode);
      return ports.map((p) => {
        if (!network.owners.has(p.inode)) network.owners.set(p.inode, socketOwner(p.inode, network.netns));
        return { ...p, process: network.owners.get(p.inode)?.command ?? null };
      });
    },

    async stop(workspaceRoot, port) {
      const network = await existing(workspaceRoot);
      if (!network) return false;
      const socket = (await listening(workspaceRoot, network)).find((p) => p.port === port);
      // Looked up afresh, inside this namespace only: a pid read earlier may be someone else's by now.
      const owner = socket ? socketOwner(socket.inode, network.netns) : null;
      if (!owner) return false;
      process.kill(owner.pid, "SIGTERM");
      return true;
    },

    async connect(workspaceRoot, port) {
      const network = await existing(workspaceRoot);
      if (!network) throw new NoWorkspaceNetworkError("Nothing is running in this workspace.");
      const { reply, handle } = await (await holderOf(workspaceRoot, network)).ask({ kind: "connect", port });
      if (reply.error || !handle)
        throw new NoWorkspaceNetworkError(`Nothing answers on port ${port} (${reply.error}).`);
      return handle as net.Socket;
    },

    async close() {
      const all = [...networks.entries()];
      await Promise.all(
        all.map(async ([root, pending]) => {
          const network = await pending.catch(() => undefined);
          if (!network) return;
          clearTimeout(network.idle);
          await dispose(root, network);
        }),
      );
    },
  };
}
