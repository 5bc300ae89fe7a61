import { randomUUID } from "node:crypto";
import type { WebSocket } from "ws";
import type { Sandbox } from "@/server/sandbox/sandbox";
import type { ProcessSecrets } from "@/server/secrets/redactor";
import { TerminalSession, type TerminalInfo } from "./terminal-session";
import { handleTerminalSocket } from "./terminal-socket";

export interface TerminalServiceConfig {
  sandbox: Sandbox;
  maxPerProject?: number;
  scrollback?: number;
  /** The shell to run; an interactive login bash by default. */
  shell?: string[];
}

/** The secrets of a terminal's environment, and the redactor that hides their values in its output. */
export type TerminalSecrets = ProcessSecrets & { personal: readonly string[] };

export class TerminalLimitError extends Error {
  constructor(limit: number) {
    super(`This project already has ${limit} terminals open. Close one before opening another.`);
    this.name = "TerminalLimitError";
  }
}

/** Every open terminal of every project in this server process. */
export class TerminalService {
  private readonly projects = new Map<string, Map<string, TerminalSession>>();
  private readonly counters = new Map<string, number>();
  /**
   * Terminals live in this process only: one a browser saw that was made before this moment and is
   * not listed now ended when the server restarted, not because someone closed it.
   */
  readonly startedAt = new Date();

  constructor(private readonly config: TerminalServiceConfig) {}

  list(projectId: string): TerminalInfo[] {
    return [...(this.projects.get(projectId)?.values() ?? [])].map((t) => t.info());
  }

  get(projectId: string, terminalId: string): TerminalSession | undefined {
    return this.projects.get(projectId)?.get(terminalId);
  }

  async create(
    projectId: string,
    workspaceRoot: string,
    size: {
      cols: number;
      rows: number;
      title?: string;
      owner?: { id: string; name: string; email: string };
      secrets?: TerminalSecrets;
    },
  ): Promise<TerminalInfo> {
    const terminals = this.projects.get(projectId) ?? new Map<string, TerminalSession>();
    const limit = this.config.maxPerProject ?? 10;
    if (terminals.size >= limit) throw new TerminalLimitError(limit);
    const n = (this.counters.get(projectId) ?? 0) + 1;
    this.counters.set(projectId, n);
    const id = randomUUID();
    const launch = await this.config.sandbox.launch({
      workspaceRoot,
      command: this.config.shell ?? ["/bin/bash", "-l"],
      projectId,
      source: { kind: "terminal", id },
      // git in the terminal commits as the person who opened it.
      gitIdentity: size.owner ? { name: size.owner.name, email: size.owner.email } : undefined,
      secrets: size.secrets?.env,
    });
    const session = new TerminalSession({
      id,
      projectId,
      title: size.title ?? `Terminal ${n}`,
      workspaceRoot,
      launch,
      cols: size.cols,
      rows: size.rows,
      scrollback: this.config.scrollback,
      owner: size.owner ? { id: size.owner.id, name: size.owner.name } : undefined,
      redactor: size.secrets?.redactor,
      personalSecrets: size.secrets?.personal,
    });
    terminals.set(session.id, session);
    this.projects.set(projectId, terminals);
    return session.info();
  }

  /** Returns false when there was no such terminal. */
  close(projectId: string, terminalId: string): boolean {
    const terminals = this.projects.get(projectId);
    const session = terminals?.get(terminalId);
    if (!terminals || !session) return false;
    terminals.delete(terminalId);
    if (terminals.size === 0) this.projects.delete(projectId);
    session.close();
    return true;
  }

  /** Serves a client on a WebSocket whose caller was already authenticated and authorized. */
  attach(terminal: TerminalSession, ws: WebSocket, options: { canWrite: boolean | (() => boolean) }): void {
    handleTerminalSocket(ws, { terminal, canWrite: options.canWrite });
  }

  /** When a project is deleted. */
  closeProject(projectId: string): void {
    for (const session of this.projects.get(projectId)?.values() ?? []) session.close();
    this.projects.delete(projectId);
    this.counters.delete(projectId);
  }

  /** On server shutdown: kill every terminal's process tree. */
  disposeAll(): void {
    for (const terminals of this.projects.values()) {
      for (const session of terminals.values()) session.close();
    }
    this.projects.clear();
  }
}

export function createTerminalService(config: TerminalServiceConfig): TerminalService {
  return new TerminalService(config);
}
