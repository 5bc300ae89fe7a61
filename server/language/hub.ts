import { Message, type NotificationMessage, type RequestMessage, type ResponseMessage } from "vscode-jsonrpc/node";
import type { Diagnostic, InitializeResult, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import { CLIENT_CAPABILITIES, forClients } from "./client-capabilities";
import { CLIENT_NOTIFICATIONS, containedInWorkspace } from "./client-messages";
import { DiagnosticsStore } from "./diagnostics-store";
import type { FileChange } from "@/lib/fs-schemas";
import type { Workspace } from "@/server/workspace";
import { AGENT_OPENER, applyChanges, pathOfUri, readDocumentText, uriOfPath } from "./documents";
import { HeldDocuments } from "./held-documents";
import type { Launch } from "./launch";
import { errorResponse, INVALID_PARAMS, notification, REQUEST_FAILED, SERVER_CANCELLED } from "./lsp-messages";
import { PendingRequests } from "./pending-requests";
import type { LanguageServerSpec } from "./registry";
import { answerServerRequest } from "./server-requests";
import { ServerProcess } from "./server-process";

// LSP is one client per server. The hub is that one client for a project's server and serves
// every editor tab and the agent behind it: it initializes the server itself, owns which documents
// are open (held-documents.ts), rewrites request ids so responses find their way back
// (pending-requests.ts), answers the server's own requests (server-requests.ts), and broadcasts
// diagnostics. A crashed server is restarted with backoff and given the open documents again;
// meanwhile requests fail fast and the editor keeps working without it.

/** `mayEdit` false: the client's document texts are not trusted; the hub reads the file from the workspace instead. */
export type HubClient = { id: string; send(message: Message): void; mayEdit?(): boolean };
export type HubState = "stopped" | "starting" | "running" | "restarting";

const MAX_BACKOFF_MS = 30_000;
/** A run this long counts as healthy: the next crash starts the backoff over. */
const STABLE_MS = 60_000;

export type HubOptions = {
  spec: LanguageServerSpec;
  /** The project's files: the only way the hub reads one, and the only documents a client may name. */
  workspace: Workspace;
  launch(): Launch;
  log?(line: string): void;
  /** Tests shorten the first restart delay. */
  baseBackoffMs?: number;
};

export class LanguageServerHub {
  private process?: ServerProcess;
  private starting?: Promise<InitializeResult>;
  private initializeResult?: InitializeResult;
  private readonly pending: PendingRequests;
  private readonly clients = new Map<string, HubClient>();
  private readonly documents: HeldDocuments;
  private readonly diagnostics = new DiagnosticsStore();
  private failures = 0;
  private restartTimer?: NodeJS.Timeout;
  private startedAt = 0;
  private stopping = false;
  /** Set once the host is going down: an exit from then on is final, never a crash to restart from. */
  private retired = false;
  state: HubState = "stopped";
  /** Restarts after crashes since the hub was made (status and tests). */
  restarts = 0;
  lastActivity = Date.now();

  constructor(private readonly options: HubOptions) {
    this.pending = new PendingRequests(options.spec.id);
    this.documents = new HeldDocuments(options.workspace, (message) => {
      if (this.state === "running") this.process?.send(message);
    });
  }

  private get root(): string {
    return this.options.workspace.root;
  }

  get spec(): LanguageServerSpec {
    return this.options.spec;
  }

  get clientCount(): number {
    return this.clients.size;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Starts the server once; later calls share the same start. */
  start(): Promise<InitializeResult> {
    this.stopping = false;
    if (this.initializeResult && this.state === "running") return Promise.resolve(this.initializeResult);
    this.starting ??= this.launchProcess().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async launchProcess(): Promise<InitializeResult> {
    this.state = this.restarts > 0 ? "restarting" : "starting";
    const launch = this.options.launch();
    const proc = new ServerProcess(
      launch,
      (message) => this.fromServer(message),
      (text) => this.options.log?.(text.trimEnd()),
    );
    this.process = proc;
    this.startedAt = Date.now();
    void proc.done.then((how) => this.exited(proc, how));
    const result = (await this.internal(proc, "initialize", {
      processId: null,
      rootUri: uriOfPath(this.root, ""),
      workspaceFolders: [{ uri: uriOfPath(this.root, ""), name: "workspace" }],
      capabilities: CLIENT_CAPABILITIES,
      initializationOptions: launch.initializationOptions,
    })) as InitializeResult;
    this.initializeResult = result;
    proc.send(notification("initialized", {}));
    if (this.options.spec.settings)
      proc.send(notification("workspace/didChangeConfiguration", { settings: this.options.spec.settings }));
    for (const document of this.documents.values()) {
      proc.send(
        notification("textDocument/didOpen", {
          textDocument: {
            uri: document.uri,
            languageId: document.languageId,
            version: document.version,
            text: document.text,
          },
        }),
      );
    }
    this.state = "running";
    return result;
  }

  private internal(proc: ServerProcess, method: string, params: unknown, timeoutMs = 60_000): Promise<unknown> {
    return this.pending.internal((message) => proc.send(message), method, params, timeoutMs);
  }

  /** A request from the server room itself (the agent's queries). */
  async request<T>(method: string, params: unknown, timeoutMs = 30_000): Promise<T> {
    this.lastActivity = Date.now();
    await this.start();
    return (await this.internal(this.process!, method, params, timeoutMs)) as T;
  }

  private exited(proc: ServerProcess, how: { code: number | null; signal: NodeJS.Signals | null }): void {
    if (proc !== this.process) return;
    this.process = undefined;
    this.initializeResult = undefined;
    const stopped = `The ${this.spec.id} language server stopped.`;
    this.pending.failAll(stopped, (clientId, originalId) =>
      this.clients.get(clientId)?.send(errorResponse(originalId, REQUEST_FAILED, stopped)),
    );
    if (this.stopping || this.retired) {
      this.state = "stopped";
      return;
    }
    // A crash: come back after a pause that doubles with each crash in a row.
    if (Date.now() - this.startedAt > STABLE_MS) this.failures = 0;
    const delay = Math.min(MAX_BACKOFF_MS, (this.options.baseBackoffMs ?? 500) * 2 ** this.failures);
    this.failures++;
    this.state = "restarting";
    clearTimeout(this.restartTimer);
    // Said when the restart happens, not at the exit: a Ctrl+C reaches the server and the host at
    // once, and the host may see the exit before its own signal; retire() then cancels this, and
    // no restart is announced that never comes.
    this.restartTimer = setTimeout(() => {
      this.restarts++;
      this.options.log?.(
        `${this.spec.id} language server exited (${how.signal ?? `code ${how.code}`}); restarting after ${delay} ms`,
      );
      void this.start().catch((error) => this.options.log?.(String(error)));
    }, delay);
    this.restartTimer.unref();
  }

  /** Ends the server politely, then for sure. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const proc = this.process;
    if (!proc) {
      this.state = "stopped";
      return;
    }
    await this.internal(proc, "shutdown", null, 2_000).catch(() => undefined);
    proc.send(notification("exit", null));
    await Promise.race([proc.done, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    proc.kill();
    await proc.done;
  }

  /**
   * The host is shutting down and will stop the server itself. A Ctrl+C, or a service manager's
   * SIGTERM to the process group, reaches the server at the same moment as the host, so it may exit
   * first: that is not a crash, and nothing is restarted while the host goes down.
   */
  retire(): void {
    this.retired = true;
    clearTimeout(this.restartTimer);
    if (!this.process && this.state === "restarting") this.state = "stopped";
  }

  /** Kills the process as a crash would (tests, and a server past its memory limit). */
  crash(): void {
    this.process?.kill();
  }

  private fromServer(message: Message): void {
    if (Message.isResponse(message)) {
      const answer = this.pending.settle(message);
      if (answer) this.clients.get(answer.clientId)?.send(answer.response);
      return;
    }
    if (Message.isRequest(message)) {
      const result = answerServerRequest(this.spec, this.root, message);
      this.process?.send({ jsonrpc: "2.0", id: message.id, result } as ResponseMessage);
      return;
    }
    if (Message.isNotification(message) && message.method === "textDocument/publishDiagnostics") {
      const params = message.params as PublishDiagnosticsParams;
      this.diagnostics.publish(params.uri, params.diagnostics);
      this.broadcast(message);
    }
  }

  private broadcast(message: NotificationMessage): void {
    for (const client of this.clients.values()) client.send(message);
  }

  /** Connects one editor; its messages go through `receive`, the hub's come back through `send`. */
  attach(client: HubClient): { receive(message: Message): void; detach(): void } {
    this.clients.set(client.id, client);
    this.lastActivity = Date.now();
    // One client's messages are handled in the order sent: a didOpen that reads the workspace
    // must reach the server before the request that follows it.
    let handled = Promise.resolve();
    return {
      receive: (message) => {
        handled = handled
          .then(() => this.fromClient(client, message))
          .catch((error) => this.options.log?.(String(error)));
      },
      detach: () => {
        this.clients.delete(client.id);
        this.pending.dropClient(client.id);
        for (const document of this.documents.values()) this.release(document.uri, client.id);
      },
    };
  }

  private async fromClient(client: HubClient, sent: Message): Promise<void> {
    this.lastActivity = Date.now();
    const message =
      Message.isRequest(sent) || Message.isNotification(sent) ? containedInWorkspace(this.root, sent) : sent;
    if (!message) {
      if (Message.isRequest(sent))
        client.send(
          errorResponse(sent.id!, INVALID_PARAMS, "Only files inside the project's workspace can be opened here."),
        );
      return;
    }
    if (Message.isRequest(message)) {
      if (message.method === "initialize") {
        try {
          const result = await this.start();
          client.send({ jsonrpc: "2.0", id: message.id, result: forClients(result) } as ResponseMessage);
        } catch (error) {
          client.send(
            errorResponse(message.id!, REQUEST_FAILED, String(error instanceof Error ? error.message : error)),
          );
        }
        return;
      }
      if (message.method === "shutdown")
        return client.send({ jsonrpc: "2.0", id: message.id, result: null } as ResponseMessage);
      if (this.state !== "running" || !this.process) {
        return client.send(
          errorResponse(
            message.id!,
            SERVER_CANCELLED,
            `The ${this.spec.id} language server is ${this.state === "restarting" ? "restarting" : "starting"}.`,
          ),
        );
      }
      const id = this.pending.forClient(client.id, message.id!, message.method);
      this.process.send({ ...message, id } as RequestMessage);
      return;
    }
    if (!Message.isNotification(message)) return; // clients answer nothing: the hub answers the server
    if (!CLIENT_NOTIFICATIONS.has(message.method)) return;
    // biome-ignore lint/suspicious/noExplicitAny: each case below reads the fields its LSP notification defines
    const params = message.params as Record<string, any>;
    switch (message.method) {
      case "initialized":
      case "exit":
        return;
      case "$/cancelRequest": {
        for (const id of this.pending.idsOf(client.id, params.id))
          this.process?.send(notification("$/cancelRequest", { id }));
        return;
      }
      case "textDocument/didOpen": {
        // Someone who may not edit must not change what the server (and the agent) believe a file
        // says: theirs is what the workspace holds (`contained` made the URI a workspace file's).
        const uri: string = params.textDocument.uri;
        const trusted = client.mayEdit?.() ?? true;
        const text = trusted
          ? params.textDocument.text
          : (this.documents.get(uri)?.text ??
            (await readDocumentText(this.options.workspace, pathOfUri(this.root, uri)!)));
        if (typeof text !== "string") return;
        return this.hold(uri, client.id, params.textDocument.languageId, text);
      }
      case "textDocument/didChange": {
        if (!(client.mayEdit?.() ?? true)) return;
        const document = this.documents.get(params.textDocument.uri);
        if (document)
          this.documents.update(document, applyChanges(document.text, document.languageId, params.contentChanges));
        return;
      }
      case "textDocument/didClose":
        return this.release(params.textDocument.uri, client.id);
      default:
        if (this.state === "running") this.process?.send(message);
    }
  }

  /** Opens a document for `opener` (or adds it as a holder); its text wins if it differs. */
  hold(uri: string, opener: string, languageId: string, text: string): void {
    this.documents.hold(uri, opener, languageId, text);
  }

  release(uri: string, opener: string): void {
    this.documents.release(uri, opener);
  }

  /** The text the server has for a document, and whether an editor (not only the agent) holds it. */
  documentOf(uri: string): { text: string; inEditor: boolean } | undefined {
    const document = this.documents.get(uri);
    return (
      document && { text: document.text, inEditor: [...document.openers].some((opener) => opener !== AGENT_OPENER) }
    );
  }

  isOpen(uri: string): boolean {
    return this.documents.get(uri) !== undefined;
  }

  /**
   * Files changed on disk (by anyone: the agent, a teammate's save, the terminal, git). The server
   * hears of every change; a document only the agent holds follows the disk, while one open in an
   * editor follows that editor (which reloads it and sends the change itself).
   */
  async filesChanged(changes: readonly FileChange[]): Promise<void> {
    if (this.state !== "running") return;
    const events = changes
      .filter((change) => change.type === "add" || change.type === "change" || change.type === "unlink")
      .map((change) => ({
        uri: uriOfPath(this.root, change.path),
        type: change.type === "add" ? 1 : change.type === "change" ? 2 : 3,
      }));
    if (events.length) this.process?.send(notification("workspace/didChangeWatchedFiles", { changes: events }));
    for (const event of events) await this.followDisk(event.uri);
  }

  /** Re-reads a document that no editor holds, so the agent's view matches the disk. */
  followDisk(uri: string): Promise<void> {
    return this.documents.followDisk(uri);
  }

  diagnosticsOf(uri: string): { items: Diagnostic[]; seq: number } | undefined {
    return this.diagnostics.of(uri);
  }

  allDiagnostics(): Map<string, Diagnostic[]> {
    return this.diagnostics.all();
  }

  get diagnosticsSeq(): number {
    return this.diagnostics.seq;
  }

  waitForDiagnostics(
    uri: string,
    afterSeq: number,
    options?: { quietMs?: number; timeoutMs?: number },
  ): Promise<Diagnostic[] | undefined> {
    return this.diagnostics.waitFor(uri, afterSeq, options);
  }
}
