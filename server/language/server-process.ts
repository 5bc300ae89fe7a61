import { spawn, type ChildProcess } from "node:child_process";
import { StreamMessageReader, StreamMessageWriter, type Message } from "vscode-jsonrpc/node";
import { processTreePids } from "@/server/terminal/process-tree";
import type { Launch } from "./launch";
import { MessageBound } from "./message-bound";

/** One run of a language server process, speaking LSP over its stdio. */
export class ServerProcess {
  private readonly child: ChildProcess;
  private readonly writer: StreamMessageWriter;
  private exited = false;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(launch: Launch, onMessage: (message: Message) => void, onStderr?: (text: string) => void) {
    const { command } = launch;
    this.child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env as NodeJS.ProcessEnv,
      uid: command.uid,
      gid: command.gid,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.done = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.exited = true;
        command.release?.();
        resolve({ code, signal });
      });
      this.child.once("error", () => {
        this.exited = true;
        resolve({ code: -1, signal: null });
      });
    });
    const bounded = this.child.stdout!.pipe(new MessageBound());
    bounded.on("error", () => {
      this.child.stdout!.unpipe(bounded);
      this.kill();
    });
    const reader = new StreamMessageReader(bounded);
    reader.onError(() => this.kill());
    reader.listen(onMessage);
    this.writer = new StreamMessageWriter(this.child.stdin!);
    this.writer.onError(() => undefined);
    this.child.stdin!.on("error", () => undefined);
    this.child.stderr!.on("data", (chunk: Buffer) => onStderr?.(chunk.toString()));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  send(message: Message): void {
    if (!this.exited) void this.writer.write(message).catch(() => undefined);
  }

  /** Kills the server and whatever it started (tsserver runs as a child of its language server). */
  kill(): void {
    if (this.exited || !this.child.pid) return;
    for (const pid of processTreePids(this.child.pid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
}
