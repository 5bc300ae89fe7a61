import { Message, type NotificationMessage, type RequestMessage, type ResponseMessage } from "vscode-jsonrpc/node";
import type { Diagnostic, InitializeResult, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import { CLIENT_CAPABILITIES, forClients, settingAt } from "./client-capabilities";
import { DiagnosticsStore } from "./diagnostics-store";
import type { FileChange } from "@/lib/fs-schemas";
import type { Workspace } from "@/server/workspace";
import {
  AGENT_OPENER,
  applyChanges,
  normalizeUri,
  pathOfUri,
  readDocumentText,
  uriOfPath,
  type OpenDocument,
} from "./documents";
import type { Launch } from "./launch";
import type { LanguageServerSpec } from "./registry";
import { ServerProcess } from "./server-process";

// LSP is one client per server. The hub is that one client for a project's server and serves
// every editor tab and the agent behind it: it initializes the server itself, owns which documents
// are open (a document stays open while anyone holds it), rewrites request ids so responses find
// their way back, answers the server's own requests, and broadcasts diagnostics. A crashed server
// is restarted with backoff and given the open documents again; meanwhile requests fail fast and
// the editor keeps working without it.

/** `mayEdit` false: the client's document texts are not trusted; the hub reads the file from the workspace instead. */
export type HubClient = { id: string; send(message: Message): void; mayEdit?(): boolean };
export type HubState = "stopped" | "starting" | "running" | "restarting";

const INVALID_PARAMS = -32602;
const REQUEST_FAILED = -32803;
const SERVER_CANCELLED = -32802;
const MAX_BACKOFF_MS = 30_000;
/** A run this long counts as healthy: the next crash starts the backoff over. */
const STABLE_MS = 60_000;
/**
 * The notifications a client may send. The workspace-wide ones (folders, configuration, watched
 * files) are the hub's own to send: from a client they would change the shared server for
 * everyone, or point it outside the workspace.
 */
const CLIENT_NOTIFICATIONS = new Set([
  "initialized",
  "exit",
  "$/cancelRequest",
  "textDocument/didOpen",
  "textDocument/didChange",
  "textDocument/didClose",
  "textDocument/didSave",
  "textDocument/willSave",
]);

type Pending =
  | { kind: "client"; clientId: string; originalId: number | string; method: string }
  | { kind: "internal"; method: string; resolve(result: unknown): void; reject(error: Error): void };

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
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly clients = new Map<string, HubClient>();
  private readonly documents = new Map<string, OpenDocument>();
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

  constructor(private readonly options: HubOptions) {}

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
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new Error(
            `The ${this.spec.id} language server did not answer ${method} within ${Math.round(timeoutMs / 1000)} s.`,
          ),
        );
      }, timeoutMs);
      timer.unref();
      const done =
        <T>(f: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          f(value);
        };
      this.pending.set(id, { kind: "internal", method, resolve: done(resolve), reject: done(reject) });
      proc.send({ jsonrpc: "2.0", id, method, params } as RequestMessage);
    });
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
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      const message = `The ${this.spec.id} language server stopped.`;
      if (pending.kind === "internal") pending.reject(new Error(message));
      else this.clients.get(pending.clientId)?.send(errorResponse(pending.originalId, REQUEST_FAILED, message));
    }
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
      const id = typeof message.id === "number" ? message.id : Number(message.id);
      const pending = this.pending.get(id);
      if (!pending) return;
      this.pending.delete(id);
      if (pending.kind === "internal") {
        if (message.error) pending.reject(new Error(message.error.message));
        else pending.resolve(message.result);
        return;
      }
      this.clients.get(pending.clientId)?.send({ ...message, id: pending.originalId } as ResponseMessage);
      return;
    }
    if (Message.isRequest(message)) {
      this.process?.send({ jsonrpc: "2.0", id: message.id, result: this.answerServer(message) } as ResponseMessage);
      return;
    }
    if (Message.isNotification(message) && message.method === "textDocument/publishDiagnostics") {
      const params = message.params as PublishDiagnosticsParams;
      this.diagnostics.publish(params.uri, params.diagnostics);
      this.broadcast(message);
    }
  }

  /** The server's requests to its client are answered here: settings from the registry, the rest acknowledged. */
  private answerServer(message: RequestMessage): unknown {
    if (message.method === "workspace/configuration") {
      const items = (message.params as { items?: { section?: string }[] } | undefined)?.items ?? [];
      return items.map((item) => settingAt(this.spec.settings ?? {}, item.section));
    }
    if (message.method === "workspace/workspaceFolders") return [{ uri: uriOfPath(this.root, ""), name: "workspace" }];
    // Edits reach files through Tandem's write path (the rename tool and the editor), never from the server.
    if (message.method === "workspace/applyEdit")
      return { applied: false, failureReason: "Apply edits through the editor." };
    return null;
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
        for (const [id, pending] of this.pending)
          if (pending.kind === "client" && pending.clientId === client.id) this.pending.delete(id);
        for (const document of [...this.documents.values()]) this.release(document.uri, client.id);
      },
    };
  }

  private async fromClient(client: HubClient, sent: Message): Promise<void> {
    this.lastActivity = Date.now();
    const message = Message.isRequest(sent) || Message.isNotification(sent) ? this.contained(sent) : sent;
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
      const id = this.nextId++;
      this.pending.set(id, { kind: "client", clientId: client.id, originalId: message.id!, method: message.method });
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
        for (const [id, pending] of this.pending) {
          if (pending.kind === "client" && pending.clientId === client.id && pending.originalId === params.id)
            this.process?.send(notification("$/cancelRequest", { id }));
        }
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
        const document = this.documents.get(normalizeUri(params.textDocument.uri));
        if (document) this.update(document, applyChanges(document.text, document.languageId, params.contentChanges));
        return;
      }
      case "textDocument/didClose":
        return this.release(params.textDocument.uri, client.id);
      default:
        if (this.state === "running") this.process?.send(message);
    }
  }

  /**
   * A client names only documents of the workspace: a message whose `textDocument.uri` is anything
   * else (another scheme, '..', an encoded climb, a path outside) is refused, and an accepted one is
   * given the canonical spelling, so the server and the hub's documents agree on what it names.
   */
  private contained<M extends RequestMessage | NotificationMessage>(message: M): M | null {
    const params = message.params as { textDocument?: { uri?: unknown } } | undefined;
    const document = params?.textDocument;
    if (!document || typeof document !== "object" || !("uri" in document)) return message;
    const relative = typeof document.uri === "string" ? pathOfUri(this.root, document.uri) : null;
    if (relative === null || relative === "") return null;
    return { ...message, params: { ...params, textDocument: { ...document, uri: uriOfPath(this.root, relative) } } };
  }

  /** Opens a document for `opener` (or adds it as a holder); its text wins if it differs. */
  hold(rawUri: string, opener: string, languageId: string, text: string): void {
    const uri = normalizeUri(rawUri);
    const existing = this.documents.get(uri);
    if (existing) {
      existing.openers.add(opener);
      if (existing.text !== text) this.update(existing, text);
      return;
    }
    const document: OpenDocument = { uri, languageId, version: 1, text, openers: new Set([opener]) };
    this.documents.set(uri, document);
    if (this.state === "running")
      this.process?.send(notification("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } }));
  }

  release(rawUri: string, opener: string): void {
    const uri = normalizeUri(rawUri);
    const document = this.documents.get(uri);
    if (!document?.openers.delete(opener) || document.openers.size > 0) return;
    this.documents.delete(uri);
    if (this.state === "running") this.process?.send(notification("textDocument/didClose", { textDocument: { uri } }));
  }

  private update(document: OpenDocument, text: string): void {
    if (document.text === text) return;
    document.text = text;
    document.version++;
    if (this.state === "running") {
      this.process?.send(
        notification("textDocument/didChange", {
          textDocument: { uri: document.uri, version: document.version },
          contentChanges: [{ text }],
        }),
      );
    }
  }

  /** The text the server has for a document, and whether an editor (not only the agent) holds it. */
  documentOf(uri: string): { text: string; inEditor: boolean } | undefined {
    const document = this.documents.get(normalizeUri(uri));
    return (
      document && { text: document.text, inEditor: [...document.openers].some((opener) => opener !== AGENT_OPENER) }
    );
  }

  isOpen(uri: string): boolean {
    return this.documents.has(normalizeUri(uri));
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
  async followDisk(uri: string): Promise<void> {
    const document = this.documents.get(normalizeUri(uri));
    if (!document || [...document.openers].some((opener) => opener !== AGENT_OPENER)) return;
    const relative = pathOfUri(this.root, document.uri);
    const text = relative === null ? null : await readDocumentText(this.options.workspace, relative);
    if (text !== null) this.update(document, text);
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

function notification(method: string, params: unknown): NotificationMessage {
  return { jsonrpc: "2.0", method, params } as NotificationMessage;
}

function errorResponse(id: number | string, code: number, message: string): ResponseMessage {
  return { jsonrpc: "2.0", id, error: { code, message } } as ResponseMessage;
}
