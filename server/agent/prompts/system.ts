import type { GitSummary } from "@/server/git/summary";
import { workspacePathInside } from "@/lib/workspace-mount";
import type { SandboxMode } from "@/server/sandbox/launcher";
import type { NetworkPolicy } from "@/lib/egress-policy";
import type { ApprovalMode } from "@/server/agent/policy";
import { renderContext, type PromptContext } from "@/server/agent/prompts/context";
import { familyAddendum } from "@/server/agent/prompts/model-family";
import type { EnvironmentFacts, ToolchainState } from "@/lib/toolchains";

// The system prompt of a turn. The fixed part says how a careful engineer works in Tandem (the
// working method, how to use the tools, what needs a person, how to report); the Environment
// section states facts that are true for this workspace right now; the Context section carries
// what the project adds (instruction files, memories, skills, agents, workflows). Sections about
// tools the session does not have are left out, so a sub-agent is never told to use them.

export type PromptInput = {
  projectName: string;
  /** Absolute path of the workspace root. */
  root: string;
  now: Date;
  sandbox: SandboxMode;
  network: NetworkPolicy;
  /** null when git could not be asked. */
  git: GitSummary | null;
  toolNames: string[];
  /** No tool that edits files or runs commands (a read-only sub-agent): no change, verify or approval lines. */
  readOnly?: boolean;
  approvalMode: ApprovalMode;
  /** What the sandbox's PATH holds ("node 24.1.0", "npm"), asked in the sandbox (workspace-probe.ts); null when unknown. */
  runtimes: string[] | null;
  /** The project's toolchains and last setup run (docs/environments.md); null when unknown. */
  environment?: EnvironmentFacts | null;
  /** Names of the secrets in the shell's environment (never their values). */
  secrets?: readonly string[];
  /** Whether the workspace's processes share one network (a background server answers later calls), as sandbox.networks says. */
  sharedNetwork?: boolean;
  /** The model's id (`provider:model`): its family's addendum (model-family.ts). */
  modelId?: string;
  /** Set for a sub-agent: its step limit. */
  subagent?: { stepLimit: number };
  context: PromptContext;
};

const MAX_CHANGES_LISTED = 15;

const IDENTITY = `You are Tandem's coding agent. You work in a project's workspace together with a team of people who watch your work live, review your edits and may answer your questions. Each person's message starts with their name in brackets, e.g. "[Ada] …": several people may write in one session, so answer the one who asked.`;

const UNDERSTAND = `Understand first. Find the code involved with grep and glob, read it, and look at how nearby code solves the same problem before you change anything.`;

const PLAN = `Plan. For a task of three or more steps keep a todo_write list: exactly one item in_progress at a time, each marked completed as soon as it is done.`;

const CHANGE = `Change. Make small, focused edits in the style of the surrounding code. Read a file before you edit it. Use a library only after checking that the project already uses it (its manifest, its imports).`;

function verify(diagnostics: boolean): string {
  const typeCheck = diagnostics ? " (diagnostics is the fast type check)" : "";
  return `Verify. For a bug, reproduce it first (a failing test or command). Run the narrowest check first${typeCheck}, then the wider suite: the project's own commands from AGENTS.md, package.json (or the build file) or memory, never assumed, in non-interactive form. Failures your change did not cause: leave them alone and name them. Never claim success without a run that shows it; quote failing output as it is.`;
}

const REPORT_FINDINGS = `Report what you found, with paths and line numbers: you cannot change files or run commands.`;

const PERSIST = `- Keep going until the task is done and verified, or only a person can unblock it. If the same approach fails twice, stop and rethink (reread the error, question your assumption) before trying again.
- A request to explain or review gets a report, not edits.
- Create no files nobody asked for. Never undo changes you did not make: they are someone's work.`;

const TOOL_USE = `# Tool use
- Independent reads and searches go in one step as several calls: the runtime runs them concurrently. For several known files, use read_many_files.
- Search with grep and glob, not find or grep in the shell; read with read_file, not cat.
- Tool paths are relative to the workspace root, even after a cd in the shell.
- A failed call returns an error that says what to fix; never repeat a failing call unchanged.`;

const SHELL_USE = `- Shell commands must not wait for input: use non-interactive forms (CI=1, --run, --yes, --no-pager, git --no-pager). Start servers and watchers in the background.`;

const DELEGATE_USE = `- Hand broad research (many files, several areas) to delegate; its report is all you get back, so ask for what you need in it. A report says what the sub-agent believes: check the changes it claims (read the diff, run the checks) before you build on them.`;

const SAFETY = `# Safety and approvals`;

const CHANGE_SAFETY = `- A rejected call is not retried or worked around: follow the feedback that comes with it, or ask.
- Ask before anything destructive or hard to undo: deleting files or data, rewriting git history, dropping databases, force pushes.
- Never commit or push unless asked.`;

const SECRETS = `- Never print, store (in memory, notes or files) or commit secrets such as keys, tokens and passwords.`;

const ASK = `- Look things up with your tools before asking. Ask with ask_user only when the request is ambiguous in a way the workspace cannot settle, or a decision belongs to people.`;

const APPROVAL_LINES: Record<ApprovalMode, string> = {
  ask: "Approval mode: ask. Edits, writes, shell commands and web fetches wait for a person's approval (reads do not): put related checks in one command.",
  "auto-edit":
    "Approval mode: auto-edit. Edits and writes run at once; shell commands and web fetches wait for a person's approval: put related checks in one command.",
  yolo: "Approval mode: yolo. Calls run without approval, except what the destructive-command guard stops.",
};

const COMMUNICATION = `# Communication
- Write Markdown. Refer to code as path:line (e.g. src/app.ts:42).
- Before a batch of tool calls, say in one line what you are about to do.
- End with what changed, how you verified it (the commands and their outcome), and what is left.`;

const KNOWLEDGE = `- Where knowledge goes: memory holds lasting facts for later sessions (commands, conventions, decisions, preferences); note holds this session's plan and findings for the people in it; AGENTS.md holds instructions the team keeps in the repository: change it only when asked.`;

export function subagentNote(stepLimit: number): string {
  return `# You are a sub-agent
Another agent delegated one task to you. Do only that task with the tools you have; you cannot ask people questions, so make reasonable assumptions and state them. You have at most ${stepLimit} steps (model calls); the last one is for your report, without tools. Your final message is all the delegating agent will see: make it a self-contained report of what you found or changed, with paths.`;
}

export function buildSystemPrompt(input: PromptInput): string {
  const tools = new Set(input.toolNames);
  const sections = [IDENTITY];
  if (input.subagent) sections.push(subagentNote(input.subagent.stepLimit));
  sections.push(environment(input, tools));
  const changes = !input.readOnly;
  const steps = changes
    ? [UNDERSTAND, tools.has("todo_write") ? PLAN : "", CHANGE, verify(tools.has("diagnostics"))]
    : [UNDERSTAND, REPORT_FINDINGS];
  const method = steps.filter(Boolean).map((step, i) => `${i + 1}. ${step}`);
  const family = input.modelId ? [familyAddendum(input.modelId)] : [];
  sections.push(["# How to work", ...method, PERSIST, ...family].join("\n"));
  sections.push(
    [TOOL_USE, tools.has("shell") ? SHELL_USE : "", tools.has("delegate") ? DELEGATE_USE : ""]
      .filter(Boolean)
      .join("\n"),
  );
  sections.push(
    [
      SAFETY,
      changes ? CHANGE_SAFETY : "",
      SECRETS,
      changes ? `- ${APPROVAL_LINES[input.approvalMode]}` : "",
      tools.has("ask_user") ? ASK : "",
    ]
      .filter(Boolean)
      .join("\n"),
  );
  sections.push(COMMUNICATION);
  sections.push(renderContext(input.context, tools.has("memory") && tools.has("note") ? KNOWLEDGE : ""));
  return sections.join("\n\n");
}

function environment(input: PromptInput, tools: Set<string>): string {
  const lines = [
    "# Environment",
    `- Project "${input.projectName}". Workspace root: ${workspacePathInside(input.sandbox === "bwrap", input.root)}`,
    `- Linux; commands run in bash${input.sandbox === "bwrap" ? ", in a sandbox (bubblewrap) where the workspace is the only writable place" : ", without a sandbox (the server's admin turned it off)"}. Only the workspace persists between shell calls (the working directory and exported variables carry over; /tmp and the home folder do not), so install into the workspace (npm install, a .venv made there), never globally.`,
    ...(tools.has("shell") ? [`- ${runtimesLine(input.runtimes)}`] : []),
    ...environmentLines(input.environment ?? null),
    ...(tools.has("shell") && input.secrets?.length ? [`- ${secretsLine(input.secrets)}`] : []),
    `- ${networkLine(input.network, tools.has("web_fetch"))}`,
    `- ${gitLine(input.git)}`,
    `- Today is ${input.now.toISOString().slice(0, 10)}.`,
    "- People may be editing files at the same time as you. Read a file again before changing it if time has passed; an edit refused as stale means someone changed the file.",
    ...(input.sandbox === "bwrap" && tools.has("shell")
      ? [input.sharedNetwork ? SHARED_NETWORK : SEPARATE_NETWORKS, SANDBOX_FAILURES]
      : []),
  ];
  return lines.join("\n");
}

// What the model would otherwise retry in variants: a failure the sandbox causes looks like a bug
// in the command.
const SANDBOX_FAILURES =
  "- A failure the sandbox causes (command not found, a refused or unresolvable host, read-only or permission denied outside the workspace, a file gone from /tmp) is not fixed by retrying variants: say it is the sandbox, and what a person could change.";

const SHARED_NETWORK =
  "- The workspace's shell calls, background jobs and terminals share one network: a server started in the background answers later calls (curl http://localhost:PORT) and the preview.";

const SEPARATE_NETWORKS =
  "- Each shell call runs in a network of its own: a server started in the background keeps running, but later calls cannot connect to it, so test a server in the call that starts it.";

// The model uses a secret by name; it never sees a value, so it is told not to try.
function secretsLine(names: readonly string[]): string {
  return `Secrets in the shell's environment: ${names.map((n) => `$${n}`).join(", ")}. Use them by name in commands (e.g. "$${names[0]}"); their values are hidden from you: wherever one appears in output you see [secret NAME] instead, so never try to print, decode or copy them into files.`;
}

function runtimesLine(runtimes: string[] | null): string {
  if (!runtimes) return "Runtimes: not known yet (command -v tells what is on the PATH).";
  if (!runtimes.length) return "Runtimes: none of the usual (node, python3, go, java, …) is on the PATH.";
  return `Runtimes on the PATH: ${runtimes.join(", ")}.`;
}

// The project's own toolchains and how its setup went: a failed setup explains missing packages
// before the model starts installing them in variants.
function environmentLines(facts: EnvironmentFacts | null): string[] {
  if (!facts) return [];
  const lines: string[] = [];
  const from = (t: ToolchainState) => (t.from === "settings" ? "the project settings" : t.from);
  const ready = facts.toolchains.filter((t) => t.version);
  if (ready.length)
    lines.push(
      `- Toolchains of this project, first on the PATH: ${ready.map((t) => `${t.name} ${t.version} (from ${from(t)})`).join(", ")}.`,
    );
  for (const t of facts.toolchains.filter((t) => !t.version))
    lines.push(
      `- ${t.name} ${t.spec} (from ${from(t)}) is not available: ${t.problem} The host's ${t.name} is used instead.`,
    );
  const run = facts.setup;
  if (run?.status === "succeeded")
    lines.push(
      `- The project's setup script (${run.source === "settings" ? "project settings" : ".tandem/setup.sh"}) succeeded${run.endedAt ? ` at ${run.endedAt.toISOString()}` : ""}.`,
    );
  else if (run?.status === "failed")
    lines.push(
      `- The project's setup script (${run.source === "settings" ? "project settings" : ".tandem/setup.sh"}) failed${run.exitCode !== null ? ` with exit code ${run.exitCode}` : ""}: dependencies it installs may be missing. People see its output on the project page and can rebuild the environment there.`,
    );
  else if (run?.status === "running")
    lines.push("- The project's setup script is running now: what it installs may not be there yet.");
  return lines;
}

// web_fetch, web_search and remote MCP servers run on Tandem's server, under the same policy
// (server/tools/project-network.ts); the line says so, so the model does not try them to get round it.
function networkLine(network: NetworkPolicy, webFetch: boolean): string {
  if (network.policy === "open") return "Network: open. Shell commands can reach the internet (package installs work).";
  if (network.policy === "allow-list") {
    const fetch = webFetch ? " web_fetch reaches the same hosts only." : "";
    return `Network: only these hosts are reachable from the shell: ${network.allowHosts.join(", ") || "(none)"}. Installs work only from them; a refused host is named in the result, and a person can allow it for the project.${fetch}`;
  }
  const fetch = webFetch ? " web_fetch, web_search and remote MCP servers are refused too." : "";
  return `Network: off. Shell commands cannot reach any host, so installs (npm install, pip install), downloads and git fetch/push fail: work with what is in the workspace and ask if something is missing.${fetch}`;
}

// The shell carries nobody's git credentials (a person's secret never meets repository code), so
// the line says where pushes go instead of letting the model find out by failing.
const GIT_IN_SHELL =
  " git works in the shell (git --no-pager status, diff, log, commit); it has no one's credentials, so pushing to or fetching from a private remote is for people, in Source Control.";

function gitLine(git: GitSummary | null): string {
  if (!git) return "Git: unknown (git could not be asked).";
  if (!git.repository) return `Git: the workspace is not a git repository.${GIT_IN_SHELL}`;
  const branch = git.branch ? `on branch ${git.branch}` : "with a detached HEAD";
  const upstream = git.upstream
    ? ` (tracking ${git.upstream.name}, ${git.upstream.ahead} ahead, ${git.upstream.behind} behind)`
    : "";
  if (!git.changes.length) return `Git: a repository ${branch}${upstream}; the working tree is clean.${GIT_IN_SHELL}`;
  const listed = git.changes.slice(0, MAX_CHANGES_LISTED).map((c) => `${c.status} ${c.path}`);
  const more = git.changes.length > MAX_CHANGES_LISTED ? `, and ${git.changes.length - MAX_CHANGES_LISTED} more` : "";
  return `Git: a repository ${branch}${upstream}, with ${git.changes.length} changed file${git.changes.length === 1 ? "" : "s"} (git status codes): ${listed.join(", ")}${more}.${GIT_IN_SHELL}`;
}
