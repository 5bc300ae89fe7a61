import type { Workspace } from "@/server/workspace";
import type { ShellSession } from "@/server/workspace/shell-session";
import type { Tool, WebSearchBackend } from "@/server/tools/define-tool";
import { createReadTracker, type ReadTracker } from "@/server/tools/read-tracker";
import { createPrefetcher, type Prefetcher } from "@/server/tools/prefetch";
import { workspaceOutputStore, type OutputStore } from "@/server/tools/output-store";
import { buildToolSet, type ToolSet } from "@/server/tools/registry";
import { ToolFailure } from "@/server/tools/result";
import { createRedactor, type ProcessSecrets } from "@/server/secrets/redactor";

// What the tools of one agent session share across its turns (the read tracker, the shell and
// its background jobs, the output store), and the session's tool set.

/**
 * `announced`: sub-folders whose AGENTS.md/TANDEM.md the model was shown (folder-instructions.ts).
 * `rewoundAt`: the seq of the last rewind (or undone rewind) the read tracker has accounted for.
 */
export type SessionResources = {
  reads: ReadTracker;
  prefetch: Prefetcher;
  shell: ShellSession;
  outputs: OutputStore;
  announced: Set<string>;
  rewoundAt: number;
  /** Which secrets the shell was started with: a turn that gets other ones starts a new shell. */
  secretsKey: string;
};

/**
 * The secrets a session's commands get (server/services/secrets.ts: the team's, the project's and
 * its author's own while nobody else wrote into it), and the redactor that hides their values.
 */
export type AgentSecrets = ProcessSecrets;
export const NO_AGENT_SECRETS: AgentSecrets = { env: {}, redactor: createRedactor([]) };

export type ShellFactory = (input: {
  workspace: Workspace;
  projectId: string;
  sessionId: string;
  outputs: OutputStore;
  secrets: AgentSecrets;
}) => ShellSession;

export const secretsKey = (secrets: AgentSecrets) => JSON.stringify(Object.entries(secrets.env).sort());

export function createSessionResources(
  workspace: Workspace,
  projectId: string,
  sessionId: string,
  shellFactory?: ShellFactory,
  secrets: AgentSecrets = NO_AGENT_SECRETS,
): SessionResources {
  const stored = workspaceOutputStore(workspace, sessionId);
  // Complete outputs are files in the workspace, which every member reads: values never go there.
  const outputs: OutputStore = secrets.redactor.empty
    ? stored
    : { save: (name, content) => stored.save(name, secrets.redactor.redact(content)) };
  return {
    reads: createReadTracker(),
    prefetch: createPrefetcher(),
    outputs,
    announced: new Set(),
    rewoundAt: 0,
    shell: shellFactory ? shellFactory({ workspace, projectId, sessionId, outputs, secrets }) : noShell(),
    secretsKey: secretsKey(secrets),
  };
}

/** For a server built without a shell: every use fails with a message the model can act on. */
function noShell(): ShellSession {
  const refuse = (): never => {
    throw new ToolFailure(
      "UNAVAILABLE",
      "This server has no shell for the agent. Use the file and search tools instead.",
    );
  };
  return {
    run: async () => refuse(),
    start: async () => refuse(),
    readNew: () => undefined,
    kill: async () => false,
    jobs: () => [],
    dispose: async () => {},
    capturedOutput: async () => null,
  };
}

/**
 * The tools of a session: the base tools plus the runtime's own (memory, note, todo_write,
 * ask_user, session_search, delegate) and the turn's extra tools. A sub-agent gets only its
 * allow-list, read and search tools by default, and never a tool marked `mainAgentOnly`
 * (delegate, workflow, ask_user). Tools the project turned off are left out altogether.
 */
export function sessionToolSet(input: {
  base?: readonly Tool[];
  own: Tool[];
  allowedTools: string[] | null;
  excludeTools?: readonly string[];
  /** web_search is in the set only when a search service is configured. */
  webSearch?: WebSearchBackend;
}): ToolSet {
  const all = buildToolSet({
    ...(input.base ? { tools: input.base } : {}),
    extraTools: input.own,
    excludeTools: input.excludeTools,
    webSearch: input.webSearch,
  });
  if (input.allowedTools === null) return all;
  const child: ToolSet = {};
  for (const [name, tool] of Object.entries(all)) {
    if (tool.mainAgentOnly) continue;
    if (input.allowedTools.includes(name)) child[name] = tool;
  }
  return child;
}

/**
 * A sub-agent's default tools: the session's read and search tools (its language tools, the
 * repository map, knowledge search, read-only MCP tools), but none that can also change things
 * (git's commit, archive's extract, the browser's click).
 */
export function defaultChildTools(tools: ToolSet): string[] {
  return Object.values(tools)
    .filter((t) => (t.kind === "read" || t.kind === "search") && !t.mutates)
    .map((t) => t.name);
}
