import { createMessageConnection, type MessageConnection } from "vscode-jsonrpc/browser";
import { toSocket, WebSocketMessageReader, WebSocketMessageWriter } from "vscode-ws-jsonrpc";
import type { InitializeResult, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import { languageSocketUrl } from "@/lib/language-protocol";

/**
 * One editor's connection to one of its project's language servers (through the hub on the
 * server), over the authenticated language socket. A dropped socket is reopened with backoff and
 * `onOpen` runs again, so the client can hand its documents over once more.
 */
export class ServerConnection {
  private connection: MessageConnection | null = null;
  private opening: Promise<MessageConnection> | null = null;
  private failures = 0;
  private closed = false;
  capabilities: InitializeResult["capabilities"] | null = null;

  constructor(
    private readonly projectId: string,
    /** The session's worktree the IDE shows; undefined: the main tree. */
    private readonly tree: string | undefined,
    readonly server: string,
    private readonly handlers: {
      onOpen(connection: MessageConnection): void;
      onDiagnostics(params: PublishDiagnosticsParams): void;
    },
  ) {}

  /** The open, initialized connection (opening it if needed). */
  get(): Promise<MessageConnection> {
    if (this.connection) return Promise.resolve(this.connection);
    this.opening ??= this.open().finally(() => (this.opening = null));
    return this.opening;
  }

  /** The connection if it is open now; requests made while it is not simply get no answer. */
  current(): MessageConnection | null {
    return this.connection;
  }

  private open(): Promise<MessageConnection> {
    return new Promise((resolve, reject) => {
      const webSocket = new WebSocket(languageSocketUrl(window.location, this.projectId, this.server, this.tree));
      webSocket.onopen = async () => {
        const socket = toSocket(webSocket);
        const connection = createMessageConnection(
          new WebSocketMessageReader(socket),
          new WebSocketMessageWriter(socket),
        );
        connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) =>
          this.handlers.onDiagnostics(params),
        );
        connection.onClose(() => this.dropped(connection));
        connection.listen();
        try {
          const result = (await connection.sendRequest("initialize", {
            processId: null,
            rootUri: "file:///",
            capabilities: {},
          })) as InitializeResult;
          this.capabilities = result.capabilities;
          connection.sendNotification("initialized", {});
          this.connection = connection;
          this.failures = 0;
          this.handlers.onOpen(connection);
          resolve(connection);
        } catch (error) {
          webSocket.close();
          reject(error);
        }
      };
      webSocket.onerror = () => reject(new Error(`The ${this.server} language server is not reachable.`));
      webSocket.onclose = () => {
        if (!this.connection) this.retryLater();
      };
    });
  }

  private dropped(connection: MessageConnection) {
    if (this.connection !== connection) return;
    this.connection = null;
    this.retryLater();
  }

  private retryLater() {
    if (this.closed) return;
    const delay = Math.min(30_000, 1_000 * 2 ** this.failures++);
    setTimeout(() => {
      if (!this.closed && !this.connection) void this.get().catch(() => undefined);
    }, delay);
  }

  close() {
    this.closed = true;
    this.connection?.dispose();
    this.connection = null;
  }
}
