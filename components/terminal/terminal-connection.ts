import type { Terminal } from "@xterm/xterm";
import { ACK_EVERY_BYTES, parseServerMessage, TerminalCloseCode, type ClientMessage } from "@/lib/terminal-protocol";
import { FloodSkipper } from "./flood-skipper";
import { OutputPacer } from "./output-pacer";

export type TerminalStatus = "connecting" | "connected" | "reconnecting" | "exited" | "closed";

export interface TerminalConnectionOptions {
  terminal: Terminal;
  url: string;
  onStatus: (status: TerminalStatus, exitCode?: number | null) => void;
  /** Called with every output frame once xterm.js has parsed it (the bench counts bytes here). */
  onParsed?: (bytes: number) => void;
}

const MAX_BACKOFF_MS = 10_000;

/**
 * Keeps one xterm.js terminal connected to a server terminal: writes the snapshot then the live
 * output, acknowledges parsed bytes so the server can pause a flood, and reconnects after a drop.
 */
export class TerminalConnection {
  private socket: WebSocket | null = null;
  private pacer: OutputPacer | null = null;
  private attempts = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  private exited = false;
  private readonly subscriptions: Array<{ dispose(): void }>;

  constructor(private readonly options: TerminalConnectionOptions) {
    const { terminal } = options;
    this.subscriptions = [
      terminal.onData((data) => {
        this.pacer?.inputSent();
        this.send({ type: "input", data });
      }),
      terminal.onResize(({ cols, rows }) => this.send({ type: "resize", cols, rows })),
    ];
    window.addEventListener("online", this.reconnectNow);
    this.connect();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.retryTimer);
    window.removeEventListener("online", this.reconnectNow);
    for (const subscription of this.subscriptions) subscription.dispose();
    this.pacer?.dispose();
    this.socket?.close(1000);
    this.socket = null;
  }

  private send(message: ClientMessage): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private connect(): void {
    const { terminal, onStatus, onParsed } = this.options;
    onStatus(this.attempts === 0 && !this.socket ? "connecting" : "reconnecting");
    const socket = new WebSocket(this.options.url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.pacer?.dispose();
    let unacked = 0;
    let writing = 0;
    // Per connection: each starts from a snapshot, with nothing carried over.
    const skipper = new FloodSkipper(() => ({
      rows: terminal.rows,
      // xterm.js's default when the option is not set.
      scrollback: terminal.options.scrollback ?? 1000,
    }));
    const pacer = new OutputPacer({
      write: (bytes, parsed) => {
        writing++;
        terminal.write(skipper.text(bytes), parsed);
      },
      onParsed: (bytes) => {
        writing--;
        unacked += bytes;
        onParsed?.(bytes);
        // Acknowledge in chunks while a flood lasts, and everything once xterm has caught up.
        if (unacked >= ACK_EVERY_BYTES || (writing === 0 && unacked > 0)) {
          this.send({ type: "ack", bytes: unacked });
          unacked = 0;
        }
      },
    });
    this.pacer = pacer;

    socket.onopen = () => {
      this.attempts = 0;
      this.send({ type: "resize", cols: terminal.cols, rows: terminal.rows });
    };
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data === "string") {
        const message = parseServerMessage(event.data);
        if (message?.type === "snapshot") {
          // The snapshot is the whole screen and scrollback: start from a blank terminal so nothing shows twice.
          terminal.reset();
          terminal.write(message.data);
          onStatus("connected");
        } else if (message?.type === "exit") {
          this.exited = true;
          onStatus("exited", message.code);
        }
        return;
      }
      pacer.push(new Uint8Array(event.data));
    };
    socket.onclose = (event) => {
      if (socket !== this.socket || this.disposed) return;
      // Closed on the server, or the person's access ended: reconnecting would not help.
      if (event.code === TerminalCloseCode.terminalClosed || event.code === TerminalCloseCode.accessEnded) {
        onStatus("closed");
        return;
      }
      if (this.exited) return;
      if (event.code === TerminalCloseCode.slowConsumer) this.attempts = 0;
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    this.options.onStatus("reconnecting");
    const backoff = Math.min(MAX_BACKOFF_MS, 250 * 2 ** this.attempts);
    this.attempts++;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), backoff * (0.75 + Math.random() / 2));
  }

  private readonly reconnectNow = () => {
    const state = this.socket?.readyState;
    if (this.disposed || this.exited || state === WebSocket.OPEN || state === WebSocket.CONNECTING) return;
    clearTimeout(this.retryTimer);
    this.attempts = 0;
    this.connect();
  };
}
