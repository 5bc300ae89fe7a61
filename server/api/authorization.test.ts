import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory, type Context } from "@/server/api/trpc";
import { createTestServices } from "@/server/test/services";
import { createApproval } from "@/server/db/repositories/approvals";
import { createSession } from "@/server/db/repositories/sessions";

// Every procedure has a rule here. A procedure added without one fails the first test, so nobody
// can ship an endpoint whose access nobody thought about.
// "session-*" procedures are named by a session and "approval-write" by an approval request: the
// caller's access to the session's project decides, exactly as for "project-*".
type Rule = "public" | "user" | "admin" | "project-read" | "project-write" | "session-read" | "session-write" | "approval-write";
const rules: Record<string, Rule> = {
  "account.status": "public",
  "account.me": "user",
  "account.settings": "admin",
  "account.setSignupMode": "admin",
  "account.invites": "admin",
  "account.createInvite": "admin",
  "account.revokeInvite": "admin",
  "project.list": "user",
  "project.create": "user",
  "project.get": "project-read",
  "project.rename": "project-write",
  "project.delete": "project-write",
  "fs.tree": "project-read",
  "fs.read": "project-read",
  "fs.write": "project-write",
  "fs.create": "project-write",
  "fs.mkdir": "project-write",
  "fs.rename": "project-write",
  "fs.delete": "project-write",
  "fs.changes": "project-read",
  "terminal.list": "project-read",
  "terminal.create": "project-write",
  "terminal.close": "project-write",
  "session.list": "project-read",
  "session.create": "project-write",
  "session.get": "session-read",
  "session.events": "session-read",
  "session.rename": "session-write",
  "session.delete": "session-write",
  "session.send": "session-write",
  "session.cancel": "session-write",
  "session.resume": "session-write",
  "session.saveNote": "session-write",
  "approval.respond": "approval-write",
  "model.list": "project-read",
  "model.setSettings": "admin",
  "agent.settings": "project-read",
  "agent.updateSettings": "project-write",
  "memory.list": "project-read",
  "memory.export": "project-read",
  "memory.search": "project-read",
  "memory.save": "project-write",
  "memory.delete": "project-write",
};
const scoped = (rule: Rule) => rule.startsWith("project-") || rule.startsWith("session-") || rule.startsWith("approval-");

const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: { access?: string } } }>;
const createCaller = createCallerFactory(appRouter);

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

async function errorCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "OK";
  } catch (error) {
    return error instanceof TRPCError ? error.code : `THROWN ${(error as Error).message}`;
  }
}

let env: Awaited<ReturnType<typeof createTestServices>>;
let owner: Context;
let stranger: Context;
let plainUser: Context;
let anonymous: Context;
let projectId: string;
let sessionId: string;
let approvalId: string;
const inputFor = () => ({ projectId, sessionId, approvalId });

beforeAll(async () => {
  env = await createTestServices();
  owner = env.context(await env.createUser("admin"));
  stranger = env.context(await env.createUser("user"));
  plainUser = stranger;
  anonymous = env.context(null);
  const project = await createCaller(owner).project.create({ name: "Secret project" });
  projectId = project.id;
  const session = await createSession(env.services.db, { projectId, title: "Secret session", authorId: owner.user!.id, model: "openai-compatible:none" });
  sessionId = session.id;
  const { approval } = await createApproval(env.services.db, { sessionId, toolCallId: "call-1", toolName: "edit", kind: "tool", input: {} });
  approvalId = approval.id;
});
afterAll(() => env.dispose());

describe("authorization", () => {
  it("has a rule for every procedure, and only public procedures are marked public", () => {
    const paths = Object.keys(procedures).sort();
    expect(paths.filter((p) => !(p in rules))).toEqual([]);
    expect(Object.keys(rules).filter((p) => !paths.includes(p))).toEqual([]);
    for (const path of paths) {
      expect(procedures[path]!._def.meta?.access === "public", path).toBe(rules[path] === "public");
    }
  });

  it("refuses anonymous callers everywhere but public procedures", async () => {
    for (const [path, rule] of Object.entries(rules)) {
      if (rule === "public") continue;
      expect(await errorCode(call(anonymous, path, inputFor())), path).toBe("UNAUTHORIZED");
    }
  });

  it("refuses non-admins on admin procedures", async () => {
    for (const [path, rule] of Object.entries(rules)) {
      if (rule !== "admin") continue;
      expect(await errorCode(call(plainUser, path, {})), path).toBe("FORBIDDEN");
    }
  });

  it("hides another user's project from every project procedure", async () => {
    for (const [path, rule] of Object.entries(rules)) {
      if (!scoped(rule)) continue;
      expect(await errorCode(call(stranger, path, inputFor())), path).toBe("NOT_FOUND");
    }
  });

  it("lets the owner through every project procedure's access check", async () => {
    for (const [path, rule] of Object.entries(rules)) {
      if (!scoped(rule) || path === "project.delete" || path === "session.delete") continue;
      // The input may be incomplete (BAD_REQUEST), but access itself must be granted.
      expect(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], path).not.toContain(await errorCode(call(owner, path, inputFor())));
    }
  });

  it("does not list another user's projects", async () => {
    const list = await createCaller(stranger).project.list();
    expect(list.map((p) => p.id)).not.toContain(projectId);
  });

  it("rejects malformed input with a clear message", async () => {
    const error = await createCaller(owner).project.get({ projectId: "../../etc" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe("BAD_REQUEST");
    expect((error as TRPCError).message).toMatch(/projectId/);
  });
});
