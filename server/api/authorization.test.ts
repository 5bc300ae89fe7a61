import { randomUUID } from "node:crypto";
import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import type { Context } from "@/server/api/context";
import { createTestServices } from "@/server/test/services";
import { createApproval } from "@/server/db/repositories/approvals";
import { createSession, findSession } from "@/server/db/repositories/sessions";
import { createShareLink } from "@/server/db/repositories/share-links";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { findProject } from "@/server/db/repositories/projects";
import type { ApiTokenScope } from "@/lib/api-tokens";
import { createApiTokenReader, issueTeamToken } from "@/server/auth/api-tokens";

// The authorization matrix: every procedure × every kind of caller, with the outcome each must get.
// Every procedure has a rule here; a procedure added without one fails the first test, so nobody
// can ship an endpoint whose access nobody thought about. The WebSocket endpoints (tRPC
// subscriptions over /api/trpc/ws, /api/terminal/ws) are driven through a real server in
// websocket-access.test.ts.
//
// Rules, by what names the thing the caller acts on:
//   public, user (signed in), admin (the instance's admin);
//   project-read / -write / -admin: a project, by the caller's role in the project's team;
//   team-read / team-write / team-admin: a team, by the caller's role in it;
//   session-read / -write: a session, as its project (team members only);
//   session-view: a session, for team members and the holders of a share link to it;
//   session-collaborate, approval-collaborate: taking part (writers, and team members with a collaborate link);
//   session-manage: the session's author or a team admin;
//   project-run: starting an agent session (writers; an API token's `run` scope);
//   browser: a signed-in person from their browser, never with an API token (managing the tokens);
//   team-token-admin: a team's owners and admins from their browser (managing the team's tokens);
//   project-admin-browser: a project's admins from their browser (its webhook's secret).
// Calls made with an API token are the owner's, narrowed by the token's scopes (tokenExpected below).
type Rule =
  | "public"
  | "user"
  | "browser"
  | "project-run"
  | "admin"
  | "project-read"
  | "project-write"
  | "project-admin"
  | "team-read"
  | "team-write"
  | "team-admin"
  | "team-token-admin"
  | "project-admin-browser"
  | "session-read"
  | "session-view"
  | "session-write"
  | "session-collaborate"
  | "session-manage"
  | "approval-collaborate";
const rules: Record<string, Rule> = {
  "account.status": "public",
  "account.me": "user",
  "apiToken.list": "browser",
  "apiToken.create": "browser",
  "apiToken.revoke": "browser",
  "apiToken.teamList": "team-token-admin",
  "apiToken.teamCreate": "team-token-admin",
  "apiToken.teamRevoke": "team-token-admin",
  "account.settings": "admin",
  "account.setSignupMode": "admin",
  "account.commandGuard": "admin",
  "account.webSearch": "admin",
  "account.setWebSearch": "admin",
  "account.telemetry": "admin",
  "account.setCommandGuard": "admin",
  "account.setNetworkPolicies": "admin",
  "account.invites": "admin",
  "account.createInvite": "admin",
  "account.revokeInvite": "admin",
  "account.users": "admin",
  "account.setUserDisabled": "admin",
  "team.list": "user",
  "team.create": "user",
  "team.get": "team-read",
  "team.members": "team-read",
  "team.rename": "team-admin",
  "team.setRole": "team-admin",
  "team.removeMember": "team-admin",
  "team.invites": "team-admin",
  "team.createInvite": "team-admin",
  "team.revokeInvite": "team-admin",
  "team.inviteInfo": "public",
  "audit.search": "admin",
  "audit.export": "admin",
  "audit.retention": "admin",
  "audit.setRetention": "admin",
  "usage.report": "admin",
  "usage.team": "team-read",
  "usage.budgets": "admin",
  "usage.setBudget": "admin",
  "usage.prices": "admin",
  "team.acceptInvite": "user",
  "team.internalHosts": "team-read",
  "team.setInternalHosts": "team-admin",
  "share.create": "session-write",
  "share.list": "session-write",
  "share.revoke": "session-write",
  "share.resolve": "public",
  "share.files": "session-view",
  "share.read": "session-view",
  "project.list": "user",
  "project.create": "user",
  "project.get": "project-read",
  "project.autosave": "project-read",
  "project.setAutosave": "project-admin",
  "project.rename": "project-admin",
  "project.delete": "project-admin",
  "fs.presence": "project-read",
  "fs.tree": "project-read",
  "fs.files": "project-read",
  "fs.read": "project-read",
  "fs.preview": "project-read",
  "fs.write": "project-write",
  "fs.create": "project-write",
  "fs.mkdir": "project-write",
  "fs.rename": "project-write",
  "fs.delete": "project-write",
  "fs.changes": "project-read",
  "search.find": "project-read",
  "search.previewReplace": "project-read",
  "search.replace": "project-write",
  "language.status": "project-read",
  "language.configured": "project-read",
  "language.rename": "project-write",
  "terminal.list": "project-read",
  "terminal.server": "project-read",
  "terminal.create": "project-write",
  "terminal.shareInput": "project-write",
  "terminal.close": "project-write",
  "ports.list": "project-read",
  "ports.stop": "project-write",
  "ports.preview": "project-read",
  "ports.setVisibility": "project-write",
  "ports.links": "project-write",
  "ports.createLink": "project-write",
  "ports.revokeLink": "project-write",
  "session.list": "project-read",
  "session.create": "project-run",
  "session.reply": "session-view",
  "session.get": "session-view",
  "session.events": "session-view",
  "session.presence": "session-view",
  "session.typing": "session-collaborate",
  "session.setApprovalsBy": "session-manage",
  "session.rename": "session-write",
  "session.setModel": "session-write",
  "session.compact": "session-write",
  "session.delete": "session-write",
  "session.send": "session-collaborate",
  "session.attachImage": "session-collaborate",
  "session.image": "session-view",
  "session.cancel": "session-write",
  "session.resume": "session-write",
  "session.saveNote": "session-write",
  "approval.respond": "approval-collaborate",
  "model.list": "project-read",
  "model.setSettings": "admin",
  "model.fixedCosts": "admin",
  "agent.settings": "project-read",
  "agent.updateSettings": "project-admin",
  "agent.hooks": "project-read",
  "agent.approveHooks": "project-admin",
  "agent.revokeHooks": "project-admin",
  "memory.list": "project-read",
  "memory.export": "project-read",
  "memory.search": "project-read",
  "memory.save": "project-write",
  "memory.delete": "project-write",
  "memory.pin": "project-write",
  "memory.unpin": "project-write",
  "extensions.settings": "project-read",
  "extensions.updateSettings": "project-admin",
  "network.settings": "project-read",
  "network.update": "project-admin",
  "network.allowHost": "project-admin",
  "network.connections": "project-read",
  "network.onConnection": "project-read",
  "environment.get": "project-read",
  "environment.save": "project-admin",
  "environment.rebuild": "project-write",
  "environment.output": "project-read",
  "extensions.status": "project-read",
  "extensions.reconnect": "project-write",
  "extensions.rediscover": "project-write",
  "extensions.schedules": "project-read",
  "extensions.pauseSchedule": "project-write",
  "extensions.resumeSchedule": "project-write",
  "extensions.cancelSchedule": "project-write",
  "extensions.workflows": "project-read",
  "extensions.skills": "project-read",
  "extensions.runWorkflow": "project-run",
  "review.changes": "session-read",
  "board.list": "project-read",
  "board.watch": "project-read",
  "notification.list": "user",
  "notification.unreadCount": "user",
  "notification.markRead": "user",
  "notification.watch": "user",
  "notification.settings": "user",
  "notification.saveSettings": "user",
  "notification.testChat": "user",
  "channel.list": "project-read",
  "channel.save": "project-admin",
  "channel.remove": "project-admin",
  "comment.list": "session-view",
  "comment.watch": "session-view",
  "comment.add": "session-write",
  "comment.delete": "session-write",
  "comment.send": "session-write",
  "review.file": "session-read",
  "review.rejectHunk": "session-write",
  "review.acceptHunk": "session-write",
  "review.rejectFile": "session-write",
  "review.acceptFile": "session-write",
  "checkpoint.list": "session-read",
  "checkpoint.preview": "session-read",
  "checkpoint.restore": "session-write",
  "checkpoint.undoRestore": "session-write",
  "git.status": "project-read",
  "git.init": "project-write",
  "git.diff": "project-read",
  "git.stage": "project-write",
  "git.unstage": "project-write",
  "git.discard": "project-write",
  "git.applyHunk": "project-write",
  "git.commit": "project-write",
  "git.lastCommitMessage": "project-read",
  "git.branches": "project-read",
  "git.createBranch": "project-write",
  "git.switchBranch": "project-write",
  "git.log": "project-read",
  "git.commitDetails": "project-read",
  "git.finishMerge": "project-write",
  "tree.options": "project-read",
  "tree.list": "project-read",
  "tree.startSession": "project-run",
  "tree.ofSession": "session-view",
  "tree.discardPreview": "session-read",
  "tree.discard": "session-write",
  "tree.merge": "session-write",
  "tree.update": "session-write",
  "tree.pushAndOpenPullRequest": "session-write",
  "git.fetch": "project-write",
  "git.pull": "project-write",
  "git.push": "project-write",
  "git.remote": "project-read",
  "git.setRemote": "project-admin",
  "git.setForge": "project-admin",
  "git.setPullMode": "project-admin",
  "git.openPullRequest": "project-write",
  "git.knownHosts": "project-read",
  "git.forgetHostKey": "project-admin",
  "git.operation": "user",
  "git.cancel": "user",
  "gitCredential.list": "user",
  "gitCredential.add": "user",
  "gitCredential.remove": "user",
  "gitCredential.teamList": "team-read",
  "gitCredential.teamAdd": "team-admin",
  "gitCredential.teamRemove": "team-admin",
  "secret.list": "user",
  "secret.set": "user",
  "secret.remove": "user",
  "secret.projectList": "project-write",
  "secret.projectSet": "project-admin",
  "secret.projectRemove": "project-admin",
  "secret.teamList": "team-write",
  "secret.teamSet": "team-admin",
  "secret.teamRemove": "team-admin",
  "webhook.get": "project-admin",
  "webhook.enable": "project-admin-browser",
  "webhook.disable": "project-admin-browser",
};

const ACTORS = [
  "anonymous",
  "otherTeam",
  "viewer",
  "member",
  "admin",
  "owner",
  "viewLink",
  "collaborateLink",
  "outsiderCollaborateLink",
] as const;
type Actor = (typeof ACTORS)[number];
type Outcome = "allow" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND";

const A = "allow" as const;
const U = "UNAUTHORIZED" as const;
const F = "FORBIDDEN" as const;
const N = "NOT_FOUND" as const;

// Columns: anonymous, another team's user, viewer, member, admin, owner (also the instance's admin),
// a view link (no account), a collaborate link held by a team viewer, and by someone outside the team.
const table: Record<Rule, [Outcome, Outcome, Outcome, Outcome, Outcome, Outcome, Outcome, Outcome, Outcome]> = {
  public: /*                */ [A, A, A, A, A, A, A, A, A],
  user: /*                  */ [U, A, A, A, A, A, U, A, A],
  browser: /*               */ [U, A, A, A, A, A, U, A, A],
  admin: /*                 */ [U, F, F, F, F, A, U, F, F],
  "project-read": /*        */ [U, N, A, A, A, A, U, A, N],
  "project-write": /*       */ [U, N, F, A, A, A, U, F, N],
  "project-run": /*         */ [U, N, F, A, A, A, U, F, N],
  "project-admin": /*       */ [U, N, F, F, A, A, U, F, N],
  "team-read": /*           */ [U, N, A, A, A, A, U, A, N],
  "team-write": /*          */ [U, N, F, A, A, A, U, F, N],
  "team-admin": /*          */ [U, N, F, F, A, A, U, F, N],
  "team-token-admin": /*    */ [U, N, F, F, A, A, U, F, N],
  "project-admin-browser": /**/ [U, N, F, F, A, A, U, F, N],
  "session-read": /*        */ [U, N, A, A, A, A, U, A, N],
  "session-view": /*        */ [U, N, A, A, A, A, A, A, A],
  "session-write": /*       */ [U, N, F, A, A, A, U, F, N],
  "session-collaborate": /* */ [U, N, F, A, A, A, U, A, F],
  "session-manage": /*      */ [U, N, F, F, A, A, U, F, N],
  "approval-collaborate": /**/ [U, N, F, A, A, A, U, A, F],
};

const procedures = appRouter._def.procedures as unknown as Record<
  string,
  { _def: { type: string; meta?: { access?: string } } }
>;

/** What `actor` must get from `path`. A view link reaches no mutation, whatever the rule. */
function expected(path: string, actor: Actor): Outcome {
  if (actor === "viewLink" && procedures[path]!._def.type === "mutation") return F;
  return table[rules[path]!][ACTORS.indexOf(actor)]!;
}

const createCaller = createCallerFactory(appRouter);

// What each rule needs of an API token beside what the call's type needs (`read` for queries and
// subscriptions, `write` for mutations, unless the rule is about taking part in sessions).
const TOKEN_NEEDS: Record<Rule, ApiTokenScope | "never"> = {
  public: "read",
  user: "read",
  browser: "never",
  admin: "admin",
  "project-read": "read",
  "project-write": "write",
  "project-admin": "admin",
  "project-run": "run",
  "team-read": "read",
  "team-write": "write",
  "team-admin": "admin",
  "team-token-admin": "never",
  "project-admin-browser": "never",
  "session-read": "read",
  "session-view": "read",
  "session-write": "write",
  "session-collaborate": "run",
  "session-manage": "write",
  "approval-collaborate": "run",
};
const RUN_RULES = new Set<Rule>(["project-run", "session-collaborate", "approval-collaborate"]);

/**
 * What the owner gets from `path` with a token of these scopes: the owner's own outcome, or
 * refused. A team token is its team's account with the role its scopes need (`as`).
 */
function tokenExpected(path: string, scopes: readonly ApiTokenScope[], as: Actor = "owner"): Outcome {
  const rule = rules[path]!;
  const owner = expected(path, as);
  if (owner !== "allow" || rule === "public") return owner;
  const need = TOKEN_NEEDS[rule];
  if (need === "never" || !scopes.includes(need)) return F;
  const byType = procedures[path]!._def.type === "mutation" && !RUN_RULES.has(rule) ? "write" : "read";
  return scopes.includes(byType) ? A : F;
}
const TOKENS: Record<string, ApiTokenScope[]> = {
  "a read token": ["read"],
  "a write token": ["read", "write"],
  "a run token": ["read", "run"],
  "an admin token": ["read", "write", "admin"],
};

async function call(ctx: Context, path: string, input: unknown): Promise<unknown> {
  const caller = createCaller(ctx) as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>;
  const [area, name] = path.split(".");
  const result = await caller[area!]![name!]!(input);
  if (result && typeof result === "object" && Symbol.asyncIterator in result) {
    // A subscription: taking its first step runs the middleware.
    const iterator = (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    await Promise.race([iterator.next(), new Promise((r) => setTimeout(r, 200))]);
    await iterator.return?.();
  }
  return result;
}

// Refusals by the access rules, as opposed to a handler's answer about the input (an unknown
// terminal, a missing file, a bad name): those mean access was granted.
const ACCESS_NOT_FOUND = /you do not have access to it|you are not in it/;

async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "allow";
  } catch (error) {
    if (!(error instanceof TRPCError)) return `THROWN ${(error as Error).message}`;
    if (error.code === "UNAUTHORIZED" || error.code === "FORBIDDEN") return error.code;
    if (error.code === "NOT_FOUND" && ACCESS_NOT_FOUND.test(error.message)) return error.code;
    return "allow";
  }
}

let env: Awaited<ReturnType<typeof createTestServices>>;
type World = {
  projectId: string;
  sessionId: string;
  approvalId: string;
  teamId: string;
  actors: Record<Actor, Context>;
};
let world: World;
let users: Record<"owner" | "admin" | "member" | "viewer" | "otherTeam", NonNullable<Context["user"]>>;

/** A team with one person per role, a project, a session (by the owner) waiting on an approval, and share links to it. */
async function makeWorld(): Promise<World> {
  const db = env.services.db;
  const team = await createTeam(db, { name: `Acme ${randomUUID().slice(0, 6)}`, ownerId: users.owner.id });
  await addMember(db, team.id, users.admin.id, "admin");
  await addMember(db, team.id, users.member.id, "member");
  await addMember(db, team.id, users.viewer.id, "viewer");
  const ctx = (user: Context["user"], shareToken?: string): Context => ({
    ...env.context(user),
    shareToken,
    clientIp: "matrix",
  });
  const project = await createCaller(ctx(users.owner)).project.create({ name: "Secret project", teamId: team.id });
  const session = await createSession(db, {
    projectId: project.id,
    title: "Secret session",
    authorId: users.owner.id,
    model: "openai-compatible:none",
  });
  const approval = await createApproval(db, {
    sessionId: session.id,
    toolCallId: "call-1",
    toolName: "edit",
    kind: "tool",
    input: {},
    turnId: "t-1",
    callHash: "",
    plan: null,
  });
  const expiresAt = new Date(Date.now() + 86_400_000);
  const view = await createShareLink(db, {
    sessionId: session.id,
    scope: "view",
    label: "view",
    createdById: users.owner.id,
    expiresAt,
  });
  const collaborate = await createShareLink(db, {
    sessionId: session.id,
    scope: "collaborate",
    label: "collab",
    createdById: users.owner.id,
    expiresAt,
  });
  return {
    projectId: project.id,
    sessionId: session.id,
    approvalId: approval.id,
    teamId: team.id,
    actors: {
      anonymous: ctx(null),
      otherTeam: ctx(users.otherTeam),
      viewer: ctx(users.viewer),
      member: ctx(users.member),
      admin: ctx(users.admin),
      owner: ctx(users.owner),
      viewLink: ctx(null, view.token),
      collaborateLink: ctx(users.viewer, collaborate.token),
      outsiderCollaborateLink: ctx(users.otherTeam, collaborate.token),
    },
  };
}

// Ids of the world, and harmless values for everything else: unknown ids, a missing file, an
// empty message (BAD_REQUEST once access is granted), so allowed calls change nothing that matters.
const inputFor = (w: World) => ({
  projectId: w.projectId,
  sessionId: w.sessionId,
  approvalId: w.approvalId,
  teamId: w.teamId,
  terminalId: randomUUID(),
  linkId: randomUUID(),
  inviteId: randomUUID(),
  noteId: randomUUID(),
  userId: "nobody",
  path: "missing.txt",
  pattern: "needle",
  text: "",
  key: "missing-key",
  token: "not-a-token",
  operationId: randomUUID(),
  credentialId: randomUUID(),
  secretId: randomUUID(),
  paths: ["missing.txt"],
  side: "worktree",
  hunkIndex: 0,
  action: "stage",
  expectedDiff: "",
  message: "",
  oid: "0000000",
  mode: "merge",
  forge: null,
  policy: "allow-list",
  allowHosts: ["registry.npmjs.org"],
  host: "registry.npmjs.org",
  networkPolicies: ["off", "allow-list", "open"],
  format: "csv",
  days: 365,
  monthlyUsd: null,
});

// Calls that would destroy the world they run in get a fresh one each time they are allowed.
const DESTRUCTIVE = new Set(["project.delete", "session.delete"]);

beforeAll(async () => {
  env = await createTestServices();
  users = {
    owner: await env.createUser("admin"),
    admin: await env.createUser("user"),
    member: await env.createUser("user"),
    viewer: await env.createUser("user"),
    otherTeam: await env.createUser("user"),
  };
  world = await makeWorld();
});
afterAll(() => env.dispose());

describe("authorization matrix", () => {
  it("has a rule for every procedure, and only public procedures are marked public", () => {
    const paths = Object.keys(procedures).sort();
    expect(paths.filter((p) => !(p in rules))).toEqual([]);
    expect(Object.keys(rules).filter((p) => !paths.includes(p))).toEqual([]);
    for (const path of paths) {
      expect(procedures[path]!._def.meta?.access === "public", path).toBe(rules[path] === "public");
    }
  });

  for (const actor of ACTORS) {
    it(`gives ${actor} exactly what the table says, on every procedure`, async () => {
      const wrong: string[] = [];
      for (const path of Object.keys(rules)) {
        const want = expected(path, actor);
        const w = want === "allow" && DESTRUCTIVE.has(path) ? await makeWorld() : world;
        const got = await outcome(call(w.actors[actor], path, inputFor(w)));
        if (got !== want) wrong.push(`${path}: expected ${want}, got ${got}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  for (const [name, scopes] of Object.entries(TOKENS)) {
    it(`gives the owner with ${name} their own rights narrowed by its scopes, on every procedure`, async () => {
      const wrong: string[] = [];
      const withToken = (w: World): Context => ({ ...w.actors.owner, token: { id: randomUUID(), scopes } });
      for (const path of Object.keys(rules)) {
        const want = tokenExpected(path, scopes);
        const w = want === "allow" && DESTRUCTIVE.has(path) ? await makeWorld() : world;
        const got = await outcome(call(withToken(w), path, inputFor(w)));
        if (got !== want) wrong.push(`${path}: expected ${want}, got ${got}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  // A team token is an account of the team's own, whose role its scopes decide.
  const teamTokenRole = (scopes: readonly ApiTokenScope[]): Actor =>
    scopes.includes("admin") ? "admin" : scopes.includes("write") || scopes.includes("run") ? "member" : "viewer";
  for (const [name, scopes] of Object.entries(TOKENS)) {
    it(`gives a team's ${name.replace(/^an? /, "")} its team's rules narrowed by its scopes, on every procedure`, async () => {
      const wrong: string[] = [];
      const made = new Map<string, Context>();
      const withTeamToken = async (w: World): Promise<Context> => {
        const kept = made.get(w.teamId);
        if (kept) return kept;
        const { token } = await issueTeamToken(env.services.db, {
          teamId: w.teamId,
          name: "matrix",
          scopes: [...scopes],
          expiresInDays: 1,
        });
        const login = await createApiTokenReader(env.services.db)(token);
        const ctx: Context = { ...env.context(login!.user), token: login!.token, clientIp: "matrix" };
        made.set(w.teamId, ctx);
        return ctx;
      };
      for (const path of Object.keys(rules)) {
        const want = tokenExpected(path, scopes, teamTokenRole(scopes));
        const w = want === "allow" && DESTRUCTIVE.has(path) ? await makeWorld() : world;
        const got = await outcome(call(await withTeamToken(w), path, inputFor(w)));
        if (got !== want) wrong.push(`${path}: expected ${want}, got ${got}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  it("calls every mutation with a view link and is refused before anything runs", async () => {
    const mutations = Object.keys(procedures).filter((p) => procedures[p]!._def.type === "mutation");
    expect(mutations.length).toBeGreaterThan(30);
    for (const path of mutations) {
      const error = await call(world.actors.viewLink, path, inputFor(world)).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).message, path).toBe("A view link is read-only.");
    }
  });

  it("lists only the caller's teams' projects", async () => {
    expect((await createCaller(world.actors.otherTeam).project.list()).map((p) => p.id)).not.toContain(world.projectId);
    expect((await createCaller(world.actors.viewer).project.list()).map((p) => p.id)).toContain(world.projectId);
  });

  it("gives the text shown before the editor (fs.preview, in the page's first request) only to who may read the file", async () => {
    const dir = env.services.files.pathOf(world.projectId);
    await writeFile(join(dir, "secret.txt"), "the team's password: 7f3a9c\n");
    const input = { projectId: world.projectId, path: "secret.txt" };
    for (const actor of ["anonymous", "otherTeam", "viewLink", "outsiderCollaborateLink"] as const) {
      const error = await call(world.actors[actor], "fs.preview", input).catch((e: unknown) => e);
      expect(error, actor).toBeInstanceOf(TRPCError);
      expect(`${(error as TRPCError).message} ${JSON.stringify(error)}`, actor).not.toContain("7f3a9c");
    }
    // Whoever may read it the plain way gets the same text (viewers read files; they cannot change them).
    for (const actor of ["viewer", "member", "owner"] as const) {
      const read = (await call(world.actors[actor], "fs.read", input)) as { content: string };
      expect(await call(world.actors[actor], "fs.preview", input), actor).toEqual({ content: read.content });
    }
    // Through a link leading out of the workspace, as fs.read: refused.
    await symlink("/etc/hostname", join(dir, "out-link"));
    await expect(call(world.actors.owner, "fs.preview", { ...input, path: "out-link" })).rejects.toBeInstanceOf(
      TRPCError,
    );
  });

  it("refuses a revoked or expired link with a message that says so", async () => {
    const w = await makeWorld();
    const link = await createCaller(w.actors.owner).share.create({
      sessionId: w.sessionId,
      scope: "view",
      label: "soon revoked",
    });
    const guest = { ...env.context(null), shareToken: link.token };
    expect((await createCaller(guest).session.get({ sessionId: w.sessionId })).id).toBe(w.sessionId);
    await createCaller(w.actors.owner).share.revoke({ sessionId: w.sessionId, linkId: link.id });
    await expect(createCaller(guest).session.get({ sessionId: w.sessionId })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: "This share link was revoked.",
    });
    expect(await createCaller(guest).share.resolve({ token: link.token })).toMatchObject({ state: "revoked" });
  });

  it("reaches only the session its link names", async () => {
    const other = await createSession(env.services.db, {
      projectId: world.projectId,
      title: "Other",
      authorId: users.owner.id,
      model: "openai-compatible:none",
    });
    await expect(createCaller(world.actors.viewLink).session.get({ sessionId: other.id })).rejects.toMatchObject({
      code: "UNAUTHORIZED",
    });
    await expect(
      createCaller(world.actors.outsiderCollaborateLink).session.get({ sessionId: other.id }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("lets only the session's author answer approvals when the session says so", async () => {
    const w = await makeWorld();
    await createCaller(w.actors.owner).session.setApprovalsBy({ sessionId: w.sessionId, approvalsBy: "author" });
    expect((await findSession(env.services.db, w.sessionId))?.approvalsBy).toBe("author");
    await expect(
      createCaller(w.actors.member).approval.respond({ approvalId: w.approvalId, decision: "approve" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await createCaller(w.actors.member).session.get({ sessionId: w.sessionId })).canAnswer).toBe(false);
    await expect(
      outcome(createCaller(w.actors.owner).approval.respond({ approvalId: w.approvalId, decision: "reject" })),
    ).resolves.toBe("allow");
  });

  it("refuses another team's real approval exactly like an approval id that names nothing", async () => {
    const attacker = createCaller(world.actors.otherTeam);
    const real = await attacker.approval
      .respond({ approvalId: world.approvalId, decision: "approve" })
      .catch((e: unknown) => e);
    const random = await attacker.approval
      .respond({ approvalId: crypto.randomUUID(), decision: "approve" })
      .catch((e: unknown) => e);
    expect(real).toBeInstanceOf(TRPCError);
    expect(random).toBeInstanceOf(TRPCError);
    expect({ code: (real as TRPCError).code, message: (real as TRPCError).message }).toEqual({
      code: (random as TRPCError).code,
      message: (random as TRPCError).message,
    });
    expect((real as TRPCError).code).toBe("NOT_FOUND");
  });

  it("rejects malformed input with a clear message", async () => {
    const error = await createCaller(world.actors.owner)
      .project.get({ projectId: "../../etc" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
    expect((error as TRPCError).message).toMatch(/projectId/);
  });

  it("does not let a member delete the team's project", async () => {
    const w = await makeWorld();
    await expect(createCaller(w.actors.member).project.delete({ projectId: w.projectId })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    expect(await findProject(env.services.db, w.projectId)).not.toBeNull();
  });
});
