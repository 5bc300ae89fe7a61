import { createRequire } from "node:module";
import type { IPty } from "node-pty";
import type { ServerMessage } from "@/lib/terminal-protocol";
import { MAX_TERMINAL_ROWS, TerminalCloseCode } from "@/lib/terminal-protocol";
import type { SandboxLaunch } from "@/server/sandbox/sandbox";
import { terminateProcessTree } from "./process-tree";
import { sequenceStateAt, type SequenceState } from "@/lib/terminal-plain-skip";
import { OutputBacklog } from "./output-backlog";
import { ScreenMirror } from "./screen-mirror";
import type { Redactor, StreamRedactor } from "@/server/secrets/redactor";

// node-pty is CommonJS without named-export hints, so Node's ESM loader cannot bind it.
const require = createRequire(import.meta.url);
const { spawn } = require("node-pty") as typeof import("node-pty");

/**
 * A client this many bytes behind (sent, not yet acknowledged as parsed) gets no more output until
 * it acknowledges; what comes meanwhile waits in its backlog, where a flood's plain text that would
 * scroll out before it could be seen is left out (output-backlog.ts). Throughput to a client is at
 * most this window per round trip, and a round trip includes the client's flood pacing (components/
 * terminal/output-pacer.ts, 80 ms). A larger window would cost Ctrl-C latency if the client parsed
 * everything in flight before the prompt; it skips a flood's plain text too (components/terminal/
 * flood-skipper.ts), so what is in flight costs about one scrollback of parsing. bench:terminal
 * measures both.
 */
export const SEND_WINDOW = 1024 * 1024;
/**
 * Pause the PTY when a client's backlog holds this much: output full of escape sequences, which
 * cannot be left out. A plain flood's backlog stays near one scrollback, so it never pauses the PTY.
 */
export const HIGH_WATERMARK = 3 * 1024 * 1024;
/** ...and resume once every backlog is under this. */
export const LOW_WATERMARK = 2 * 1024 * 1024;
/** The mirror may queue more: it skips plain floods, so only output full of escapes fills it. */
const MIRROR_HIGH_WATERMARK = 8 * 1024 * 1024;
const FRAME_MAX_CHARS = 64 * 1024;
const FRAME_DELAY_MS = 8;
/** A client whose backlog keeps the terminal paused this long is dropped; it resyncs from a snapshot. */
const SLOW_CONSUMER_MS = 10_000;
/**
 * Output that could be the start of a secret's value waits this long for the rest before it is
 * shown as it is (someone typing the first letters of a value should still see them echoed).
 */
const SECRET_HOLD_MS = 200;

export interface TerminalInfo {
  id: string;
  projectId: string;
  title: string;
  createdAt: string;
  cols: number;
  rows: number;
  pid: number;
  exited: boolean;
  exitCode: number | null;
  /** Who opened it: they may type; others watch unless input is shared. */
  owner: { id: string; name: string } | null;
  inputShared: boolean;
  /** Its opener's own secrets are in its environment: its input cannot be shared. */
  holdsOwnSecrets: boolean;
}

/** Where a terminal's output goes: one per connected client, usually a WebSocket. */
export interface TerminalSink {
  output(frame: Buffer): void;
  message(message: ServerMessage): void;
  close(code: number, reason: string): void;
}

export interface TerminalAttachment {
  ack(bytes: number): void;
  detach(): void;
}

export interface TerminalSessionOptions {
  id: string;
  projectId: string;
  title: string;
  workspaceRoot: string;
  /** The sandboxed shell, built by the terminal service (see Sandbox.launch). */
  launch: SandboxLaunch;
  cols: number;
  rows: number;
  scrollback?: number;
  owner?: { id: string; name: string };
  /** Hides the values of the secrets in its environment from everyone who watches it, its owner included. */
  redactor?: Redactor;
  /** Names of its owner's own secrets in its environment: nobody else may type into it then. */
  personalSecrets?: readonly string[];
}

interface Client {
  sink: TerminalSink;
  /** Bytes sent and not yet acknowledged. */
  unacked: number;
  /** Output that waits while the client is a window behind. */
  backlog: OutputBacklog;
  syncing: boolean;
  held: Buffer[];
  exitSent: boolean;
  /** The exit is told after the output still waiting for the client. */
  exitWaits: boolean;
  behindSince: number | null;
}

// The prompt shows where you are in the project ("workspace/src"), not the server's path to its
// workspace folder. Set before every prompt because /etc/bash.bashrc overwrites PS1. PS1 names
// the variable rather than holding the path, so a directory called $(...) is shown, never run.
const WORKSPACE_PROMPT =
  'case "$PWD/" in "$TANDEM_WORKSPACE"/*) __tandem_where="workspace${PWD#"$TANDEM_WORKSPACE"}";; *) __tandem_where="$PWD";; esac; ' +
  "PS1='\\[\\e[32m\\]\\u@tandem\\[\\e[0m\\]:\\[\\e[34m\\]${__tandem_where}\\[\\e[0m\\]\\$ '";

export class TerminalSession {
  readonly id: string;
  readonly projectId: string;
  readonly title: string;
  readonly createdAt = new Date();
  readonly owner: { id: string; name: string } | null;
  /** Set by the owner: teammates who may write in the project may also type here. */
  inputShared = false;
  readonly personalSecrets: readonly string[];
  private readonly redaction: StreamRedactor | null;
  private redactionTimer: NodeJS.Timeout | undefined;
  private readonly pty: IPty;
  private readonly screen: ScreenMirror;
  private readonly clients = new Set<Client>();
  private frame: string[] = [];
  private frameChars = 0;
  private frameTimer: NodeJS.Timeout | undefined;
  /** The parser's state after all output sent so far. */
  private streamState: SequenceState = "ground";
  private readonly scrollback: number;
  private paused = false;
  private pausedCheck: NodeJS.Timeout | undefined;
  private exitCode: number | null | undefined;
  private closed = false;
  private readonly exitListeners: Array<(code: number | null) => void> = [];

  constructor(options: TerminalSessionOptions) {
    this.id = options.id;
    this.projectId = options.projectId;
    this.title = options.title;
    this.owner = options.owner ?? null;
    this.personalSecrets = options.personalSecrets ?? [];
    this.redaction = options.redactor && !options.redactor.empty ? options.redactor.stream() : null;
    const command = options.launch.command;
    this.scrollback = options.scrollback ?? 5000;
    this.screen = new ScreenMirror(options.cols, options.rows, this.scrollback, () => {
      if (this.paused) this.updateFlow();
    });
    this.pty = spawn(command.file, command.args, {
      name: "xterm-256color",
      cols: options.cols,
      rows: options.rows,
      cwd: command.cwd,
      env: { ...command.env, TANDEM_WORKSPACE: command.workspace, PROMPT_COMMAND: WORKSPACE_PROMPT },
      uid: command.uid,
      gid: command.gid,
    });
    this.onExitOnce(() => void options.launch.close());
    // Shown in the terminal's output (not typed into the shell): why the command writing just died.
    options.launch.onDiskFull((message) => this.onOutput(`\r\n\x1b[1;33mtandem: ${message}\x1b[0m\r\n`));
    this.pty.onData((data) => this.onRedacted(data));
    this.pty.onExit(({ exitCode }) => this.onExit(exitCode));
  }

  get pid(): number {
    return this.pty.pid;
  }

  get exited(): boolean {
    return this.exitCode !== undefined;
  }

  info(): TerminalInfo {
    return {
      id: this.id,
      projectId: this.projectId,
      title: this.title,
      createdAt: this.createdAt.toISOString(),
      cols: this.screen.cols,
      rows: this.screen.rows,
      pid: this.pty.pid,
      exited: this.exited,
      exitCode: this.exitCode ?? null,
      owner: this.owner,
      inputShared: this.inputShared,
      holdsOwnSecrets: this.personalSecrets.length > 0,
    };
  }

  onExitOnce(listener: (code: number | null) => void): void {
    if (this.exited) listener(this.exitCode ?? null);
    else this.exitListeners.push(listener);
  }

  write(data: string): void {
    if (!this.exited && !this.closed) this.pty.write(data);
  }

  resize(cols: number, rows: number): void {
    if (this.exited || this.closed) return;
    if (cols === this.screen.cols && rows === this.screen.rows) return;
    this.pty.resize(cols, rows);
    // The mirror resizes after the output batched so far, as the browsers do.
    this.flushFrame();
    this.screen.resize(cols, rows);
  }

  /** Sends the screen and scrollback, then live output from exactly where the snapshot ends. */
  attach(sink: TerminalSink): TerminalAttachment {
    if (this.closed) {
      sink.close(TerminalCloseCode.terminalClosed, "terminal closed");
      return { ack: () => {}, detach: () => {} };
    }
    // Output still batched goes to the mirror now, so the snapshot includes it.
    this.flushFrame();
    const client: Client = {
      sink,
      unacked: 0,
      // Below its scrollback, a backlog keeps the rows of the tallest screen a client may have.
      backlog: new OutputBacklog({ scrollback: this.scrollback, rows: MAX_TERMINAL_ROWS }),
      syncing: true,
      held: [],
      exitSent: false,
      exitWaits: false,
      behindSince: null,
    };
    this.clients.add(client);
    this.screen.snapshot(({ data, cols, rows }) => {
      if (!this.clients.has(client)) return;
      sink.message({ type: "snapshot", data, cols, rows });
      client.syncing = false;
      for (const frame of client.held) sink.output(frame);
      client.held = [];
      this.sendBacklog(client);
      if (this.exited) this.sendExit(client);
    });
    return {
      ack: (bytes) => {
        client.unacked = Math.max(0, client.unacked - bytes);
        this.sendBacklog(client);
        this.updateFlow();
      },
      detach: () => {
        this.clients.delete(client);
        this.updateFlow();
      },
    };
  }

  /** Kills the shell and everything it started, and disconnects every client. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.frameTimer);
    clearTimeout(this.redactionTimer);
    clearInterval(this.pausedCheck);
    for (const client of this.clients) client.sink.close(TerminalCloseCode.terminalClosed, "terminal closed");
    this.clients.clear();
    if (!this.exited) {
      terminateProcessTree(this.pty.pid);
      // A paused PTY would never read the end of the stream, and node-pty reports exit only after it.
      this.pty.resume();
    }
    this.screen.dispose();
  }

  /** Output with the values of its secrets replaced, before the mirror or any client sees it. */
  private onRedacted(data: string): void {
    if (!this.redaction) return this.onOutput(data);
    clearTimeout(this.redactionTimer);
    const shown = this.redaction.push(data);
    if (shown) this.onOutput(shown);
    if (this.redaction.holding)
      this.redactionTimer = setTimeout(() => this.onOutput(this.redaction!.end()), SECRET_HOLD_MS);
  }

  private onOutput(data: string): void {
    if (this.closed) return;
    this.frame.push(data);
    this.frameChars += data.length;
    if (this.frameChars >= FRAME_MAX_CHARS) this.flushFrame();
    else this.frameTimer ??= setTimeout(() => this.flushFrame(), FRAME_DELAY_MS);
    this.updateFlow();
  }

  private flushFrame(): void {
    clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
    if (this.frame.length === 0) return;
    const text = this.frame.length === 1 ? this.frame[0]! : this.frame.join("");
    this.frame = [];
    this.frameChars = 0;
    const frame = Buffer.from(text, "utf8");
    const stateBefore = this.streamState;
    // One byte per character: plain ASCII, so no C1 controls to look for.
    const ascii = frame.length === text.length;
    this.streamState = sequenceStateAt(text, text.length, stateBefore, ascii);
    this.screen.write(text, stateBefore, ascii);
    for (const client of this.clients) {
      if (client.backlog.empty && client.unacked < SEND_WINDOW) {
        client.unacked += frame.length;
        // A client waiting for its snapshot gets these right after it.
        if (client.syncing) client.held.push(frame);
        else client.sink.output(frame);
      } else {
        client.backlog.push(text, stateBefore, ascii);
      }
    }
  }

  /** Sends what waits for a client once it is less than a window behind. */
  private sendBacklog(client: Client): void {
    if (client.syncing || client.backlog.empty || client.unacked >= SEND_WINDOW) return;
    const frame = Buffer.from(client.backlog.take(), "utf8");
    client.unacked += frame.length;
    client.sink.output(frame);
    if (client.exitWaits) this.sendExit(client);
  }

  private updateFlow(): void {
    if (this.closed || this.exited) return;
    const now = Date.now();
    // Expressed against the client watermarks, so one comparison covers both.
    let behind = (this.screen.backlog * HIGH_WATERMARK) / MIRROR_HIGH_WATERMARK;
    for (const client of this.clients) {
      behind = Math.max(behind, client.backlog.chars);
      if (client.backlog.chars <= HIGH_WATERMARK) client.behindSince = null;
      else if (client.behindSince === null) client.behindSince = now;
      else if (now - client.behindSince > SLOW_CONSUMER_MS) {
        this.clients.delete(client);
        client.sink.close(TerminalCloseCode.slowConsumer, "client too slow; reconnect to resync");
      }
    }
    if (!this.paused && behind > HIGH_WATERMARK) {
      this.paused = true;
      this.pty.pause();
      // Nothing else wakes us while paused if a client stops acknowledging.
      this.pausedCheck = setInterval(() => this.updateFlow(), 1000);
    } else if (this.paused && behind < LOW_WATERMARK) {
      this.paused = false;
      clearInterval(this.pausedCheck);
      this.pty.resume();
    }
  }

  private onExit(code: number): void {
    clearTimeout(this.redactionTimer);
    if (this.redaction?.holding) this.onOutput(this.redaction.end());
    this.exitCode = code;
    this.flushFrame();
    clearInterval(this.pausedCheck);
    for (const listener of this.exitListeners.splice(0)) listener(code);
    if (this.closed) return;
    this.screen.whenParsed(() => {
      for (const client of this.clients) if (!client.syncing) this.sendExit(client);
    });
  }

  private sendExit(client: Client): void {
    client.exitWaits = !client.backlog.empty;
    if (client.exitSent || client.exitWaits) return;
    client.exitSent = true;
    client.sink.message({ type: "exit", code: this.exitCode ?? null });
  }
}
