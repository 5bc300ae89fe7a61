import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseForges } from "@/lib/git-forges";
import { resolveConflictsMessage } from "@/lib/trees";
import { listBoardRows } from "@/server/db/repositories/session-summaries";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { startGitHttpServer, type GitHttpServer } from "@/server/test/git-http-server";
import { sandboxMode } from "@/server/test/sandbox-guard";

// Finishing sessions on branches of their own, through the real services (scripted model, real
// tools, real git, a real git server on loopback, the sandbox when there is one): two sessions
// change the same function differently; both merge into main, the second through a conflict
// resolved as the merge editor does; a third updates from main through a conflict the agent
// resolves, then is pushed and its pull request opened (the forge's REST API is the one thing
// scripted). The main tree holds exactly the merged result.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
let server: GitHttpServer;
let api: http.Server;
let projectId: string;
let main: string;
const pulls: Array<{ head: string; base: string; title: string }> = [];
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "safe.directory=*", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });

const ORIGINAL = "export function price(amount: number) {\n  return amount;\n}\n";
const fn = (body: string) => `export function price(amount: number) {\n  return ${body};\n}\n`;

beforeAll(async () => {
  // In bubblewrap git reaches the server through the egress proxy, by a name it maps to loopback.
  h = await createAgentHarness({
    coreTools: true,
    extensions: {},
    sandbox: sandboxMode,
    egressTestHosts: new Map([["git.test", "127.0.0.1"]]),
  });
  server = await startGitHttpServer({ tokens: { ghp_finish_token: "ada" } });
  const remote = sandboxMode === "bwrap" ? server.url.replace("127.0.0.1", "git.test") : server.url;
  server.createRepository("acme/shop", { "src/price.ts": ORIGINAL });
  // GitHub's REST pulls endpoint, served locally: the one fake allowed, since a real forge cannot run here.
  api = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      if (
        req.method !== "POST" ||
        req.url !== "/api/v3/repos/acme/shop/pulls" ||
        req.headers.authorization !== "Bearer ghp_finish_token"
      )
        return res.writeHead(404).end('{"message":"Not Found"}');
      const body = JSON.parse(raw) as { head: string; base: string; title: string };
      pulls.push(body);
      res
        .writeHead(201, { "content-type": "application/json" })
        .end(JSON.stringify({ number: 3, html_url: "https://forge.test/acme/shop/pull/3" }));
    });
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  const host = new URL(remote).host;
  h.env.services.config.gitForges = parseForges(
    `${host}=github@http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v3`,
  );
  await h.caller.gitCredential.add({ name: "Forge", host, username: "ada", token: "ghp_finish_token" });
  const project = await h.caller.project.create({ name: "Shop", gitUrl: `${remote}/acme/shop.git` });
  projectId = project.id;
  await h.caller.agent.updateSettings({ projectId, approvalMode: "yolo", allowRules: [{ tool: "shell" }] });
  main = h.env.services.files.pathOf(projectId);
}, 120_000);
afterAll(async () => {
  await h?.dispose();
  await server?.close();
  await new Promise<void>((resolve) => (api ? api.close(() => resolve()) : resolve()));
});

/** A turn whose shell writes `price`'s new body and shows the tree's status. */
function edit(name: string, body: string) {
  const command = `printf '%s\\n' 'export function price(amount: number) {' '  return ${body};' '}' > src/price.ts && echo ${name}-done && git status --porcelain`;
  return [
    { match: `${name}:`, toolCalls: [{ id: `${name}_shell`, name: "shell", arguments: { command } }] },
    { match: `${name}-done`, text: `${name} finished.` },
  ];
}

const start = (title: string) => h.caller.tree.startSession({ projectId, title });
const send = async (sessionId: string, text: string) => {
  await h.caller.session.send({ sessionId, text });
  await h.agent.idle(sessionId);
};

describe("finishing sessions on their own branches", () => {
  it("merges two changes of one function (the second through the merge editor), updates a third from main through a conflict the agent resolves, and opens its pull request", {
    timeout: 240_000,
  }, async () => {
    const alpha = await start("Double the price");
    const beta = await start("Round the price");
    const gamma = await start("Price with tax");
    h.model.load({
      replies: [
        ...edit("alpha", "amount * 2"),
        ...edit("beta", "Math.round(amount)"),
        ...edit("gamma", "amount * 1.2"),
      ],
    });
    await Promise.all([
      send(alpha.id, "alpha: double it"),
      send(beta.id, "beta: round it"),
      send(gamma.id, "gamma: add tax"),
    ]);
    expect(readFileSync(path.join(main, "src/price.ts"), "utf8")).toBe(ORIGINAL);

    // The first merges as a fast-forward; the second conflicts in the main tree.
    expect(await h.caller.tree.merge({ sessionId: alpha.id })).toMatchObject({ fastForward: true, base: "main" });
    await expect(h.caller.tree.merge({ sessionId: beta.id })).rejects.toThrow(/conflicts/);
    const midMerge = await h.caller.git.status({ projectId });
    expect(midMerge.repository && midMerge.conflicted.map((f) => f.path)).toEqual(["src/price.ts"]);

    // What the merge editor does: write the resolved text, stage it, commit the merge.
    const resolved = fn("Math.round(amount * 2)");
    await h.caller.fs.write({ projectId, path: "src/price.ts", content: resolved });
    await h.caller.git.stage({ projectId, paths: ["src/price.ts"] });
    await h.caller.git.finishMerge({ projectId, action: "continue" });
    expect(await h.caller.git.status({ projectId })).toMatchObject({ operation: null, conflicted: [] });

    // Update from main: the third session's branch takes both merges and conflicts in its own tree only.
    const update = await h.caller.tree.update({ sessionId: gamma.id });
    expect(update).toMatchObject({ branch: "tandem/price-with-tax", base: "main", conflicted: ["src/price.ts"] });
    const gammaRoot = h.env.services.files.treePath({ projectId, treeId: gamma.id });
    expect(readFileSync(path.join(gammaRoot, "src/price.ts"), "utf8")).toMatch(/<<<<<<< HEAD/);
    expect(await h.caller.git.status({ projectId, tree: gamma.id })).toMatchObject({ operation: "merge" });
    expect(git(main, "status", "--porcelain")).toBe("");
    await expect(h.caller.tree.update({ sessionId: gamma.id })).rejects.toThrow(/middle of a merge/);

    // Asked to resolve, the agent (scripted) writes both intents and finishes the merge in its shell.
    const finish = `printf '%s\\n' 'export function price(amount: number) {' '  return Math.round(amount * 2) * 1.2;' '}' > src/price.ts && git add src/price.ts && git -c user.name=Agent -c user.email=agent@example.com commit -q --no-edit && echo resolved-done && git status --porcelain`;
    h.model.load({
      replies: [
        {
          match: "src/price.ts",
          toolCalls: [{ id: "resolve_shell", name: "shell", arguments: { command: finish } }],
        },
        { match: "resolved-done", text: "Resolved." },
      ],
    });
    await send(gamma.id, resolveConflictsMessage("main", update.conflicted));
    expect(await h.caller.git.status({ projectId, tree: gamma.id })).toMatchObject({ operation: null, conflicted: [] });

    // Push and open a pull request: the branch reaches the real git server, the API opens it.
    const pushed = await h.caller.tree.pushAndOpenPullRequest({
      sessionId: gamma.id,
      operationId: crypto.randomUUID(),
    });
    expect(pushed.pullRequest).toMatchObject({ url: "https://forge.test/acme/shop/pull/3", number: 3 });
    expect(pulls).toEqual([{ head: "tandem/price-with-tax", base: "main", title: "Price with tax", body: "" }]);
    expect(server.git("acme/shop", ["show", "tandem/price-with-tax:src/price.ts"])).toBe(
      fn("Math.round(amount * 2) * 1.2"),
    );
    const card = (await listBoardRows(h.env.services.db, projectId, gamma.id))[0];
    expect(card).toMatchObject({
      branch: "tandem/price-with-tax",
      pullRequestUrl: "https://forge.test/acme/shop/pull/3",
    });
    expect(await h.caller.tree.ofSession({ sessionId: gamma.id })).toMatchObject({
      pullRequestUrl: "https://forge.test/acme/shop/pull/3",
    });
    expect(only(await h.events(gamma.id), "pull_request_opened")).toHaveLength(1);

    // The main tree holds exactly the two merges: the resolved function, nothing of the third.
    expect(readFileSync(path.join(main, "src/price.ts"), "utf8")).toBe(resolved);
    expect(git(main, "status", "--porcelain")).toBe("");
    expect(git(main, "ls-files").trim().split("\n")).toEqual(["src/price.ts"]);
    expect(git(main, "log", "-1", "--format=%s").trim()).toBe(
      "Merge branch 'tandem/round-the-price' (Round the price)",
    );
    expect(git(main, "log", "--format=%s").trim().split("\n").sort()).toEqual([
      "Double the price",
      "Initial commit",
      "Merge branch 'tandem/round-the-price' (Round the price)",
      "Round the price",
    ]);
  });

  it("says a branch already has its base's commits, and refuses a running or discarded session", async () => {
    const delta = await start("Nothing new");
    expect(await h.caller.tree.update({ sessionId: delta.id })).toMatchObject({ upToDate: true, conflicted: [] });
    await h.caller.tree.discard({ sessionId: delta.id });
    await expect(h.caller.tree.update({ sessionId: delta.id })).rejects.toThrow(/was discarded/);
    await expect(
      h.caller.tree.pushAndOpenPullRequest({ sessionId: delta.id, operationId: crypto.randomUUID() }),
    ).rejects.toThrow(/was discarded/);
    expect(existsSync(h.env.services.files.treePath({ projectId, treeId: delta.id }))).toBe(false);
  });
});
