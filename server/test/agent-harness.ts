import { z } from "zod";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { listEvents } from "@/server/db/repositories/session-events";
import { createTestServices, type TestExtensionOptions } from "./services";
import { defineTool } from "@/server/tools/define-tool";
import { ok } from "@/server/tools/result";
import { CORE_TOOLS } from "@/server/tools/core-tools";
import { loadScenario, startModelServer, type Scenario } from "@/e2e/fixtures/model-server/server";
import type { SessionEvent } from "@/lib/session-events";
import type { SandboxMode } from "@/server/sandbox/launcher";
import type { BudgetNotices } from "@/server/services/spending";

// The agent under test: the real runtime and API on a fresh database, talking to the scripted
// model server through the `openai-compatible` provider, with small deterministic tools.

export type ToolLogEntry = { tool: string; input: unknown; start: number; end: number };

export function testTools(log: ToolLogEntry[]) {
  const timed = async <T>(tool: string, input: unknown, work: () => Promise<T>) => {
    const start = performance.now();
    const result = await work();
    log.push({ tool, input, start, end: performance.now() });
    return result;
  };
  return [
    defineTool({
      name: "echo",
      kind: "read",
      description: "Echo a text back.",
      input: z.object({ text: z.string() }),
      describe: (i) => `Echo ${i.text}`,
      execute: (i) => timed("echo", i, async () => ok(`echo: ${i.text}`)),
    }),
    defineTool({
      name: "slow_read",
      kind: "read",
      description: "Read something slowly.",
      input: z.object({ name: z.string() }),
      describe: (i) => `Read ${i.name}`,
      execute: (i) =>
        timed("slow_read", i, async () => (await new Promise((r) => setTimeout(r, 150)), ok(`read ${i.name}`))),
    }),
    defineTool({
      name: "write",
      kind: "edit",
      description: "Write a file.",
      input: z.object({ path: z.string(), content: z.string() }),
      describe: (i) => `Write ${i.path}`,
      execute: (i, ctx) =>
        timed("write", i, async () => {
          await ctx.workspace.write(i.path, i.content).catch(() => ctx.workspace.create(i.path, i.content));
          return ok(`wrote ${i.path}`, { kind: "text", text: `wrote ${i.path}` });
        }),
    }),
    defineTool({
      name: "run",
      kind: "execute",
      description: "Run a command.",
      input: z.object({ command: z.string() }),
      describe: (i) => `Run ${i.command}`,
      execute: (i) => timed("run", i, async () => ok(`ran ${i.command}`)),
    }),
  ];
}

/** `coreTools`: the real built-in tools (read_file, edit, …) beside the test tools. */
export async function createAgentHarness(
  options: {
    extensions?: TestExtensionOptions;
    /** The real built-in tools beside the test tools; "only": without the test tools, as in production. */
    coreTools?: boolean | "only";
    /** Gives the agent the language servers' tools. */
    language?: boolean;
    /** Serves the scripted model as an Ollama server too (its /api/ps and /api/show), as the default model. */
    ollama?: NonNullable<Parameters<typeof startModelServer>[0]>["ollama"];
    fetchAllowHosts?: string[];
    /** Runs the project's processes in bubblewrap (the agent's shell needs `extensions` too). */
    sandbox?: SandboxMode;
    /** Gives the agent its browser, and each project a uid and network of its own (see createTestServices). */
    browser?: boolean;
    perProjectUid?: boolean;
    /** Names the egress proxy resolves to loopback test servers (as createTestServices). */
    egressTestHosts?: Map<string, string>;
    /** As createTestServices: chat webhooks on loopback, the notifications' digest window and sweep. */
    chatAllowHosts?: string[];
    digestWindowMs?: number;
    digestSweepMs?: number;
    /** Where budgets' 80% notices go (as createTestServices). */
    budgetNotices?: BudgetNotices;
  } = {},
) {
  const model = await startModelServer(options.ollama ? { ollama: options.ollama } : {});
  const toolLog: ToolLogEntry[] = [];
  const tools =
    options.coreTools === "only"
      ? CORE_TOOLS
      : options.coreTools
        ? [...CORE_TOOLS, ...testTools(toolLog)]
        : testTools(toolLog);
  const env = await createTestServices({
    modelBaseUrl: model.url,
    modelAsOllama: !!options.ollama,
    tools,
    extensions: options.extensions,
    fetchAllowHosts: options.fetchAllowHosts,
    sandbox: options.sandbox,
    browser: options.browser,
    perProjectUid: options.perProjectUid,
    egressTestHosts: options.egressTestHosts,
    language: options.language,
    chatAllowHosts: options.chatAllowHosts,
    digestWindowMs: options.digestWindowMs,
    digestSweepMs: options.digestSweepMs,
    budgetNotices: options.budgetNotices,
  });
  const user = await env.createUser("admin");
  const caller = createCallerFactory(appRouter)(env.context(user));
  const project = await caller.project.create({ name: "Agent test" });
  const agent = env.services.agent;

  const harness = {
    model,
    env,
    user,
    caller,
    project,
    agent,
    toolLog,
    async newSession(scenario?: Scenario | string) {
      if (scenario) model.load(typeof scenario === "string" ? loadScenario(scenario) : scenario);
      toolLog.length = 0;
      return caller.session.create({ projectId: project.id });
    },
    events: (sessionId: string): Promise<SessionEvent[]> => listEvents(env.services.db, sessionId),
    async send(sessionId: string, text: string) {
      await caller.session.send({ sessionId, text });
      await agent.idle(sessionId);
      return harness.events(sessionId);
    },
    async status(sessionId: string) {
      return (await caller.session.get({ sessionId })).status;
    },
    async waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > until) throw new Error("timed out waiting");
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async dispose() {
      await env.dispose();
      await model.close();
    },
  };
  return harness;
}

export const typesOf = (events: SessionEvent[]) => events.map((e) => e.type);
export function only<T extends SessionEvent["type"]>(events: SessionEvent[], type: T) {
  return events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);
}
