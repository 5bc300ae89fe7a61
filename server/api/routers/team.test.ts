import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import type { Context, Services } from "@/server/api/context";
import { createTestServices } from "@/server/test/services";

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
const sent: Array<{ to: string[]; subject: string; body: string }> = [];
let users: Record<"owner" | "admin" | "joiner", NonNullable<Context["user"]>>;
const as = (user: Context["user"], services?: Services) =>
  createCaller({ ...env.context(user), ...(services ? { services } : {}), clientIp: `test-${Math.random()}` });

beforeAll(async () => {
  env = await createTestServices();
  users = { owner: await env.createUser(), admin: await env.createUser(), joiner: await env.createUser() };
});
afterAll(() => env.dispose());

describe("team router", () => {
  it("invites by link, and also by email when SMTP and a public URL are configured", async () => {
    const team = await as(users.owner).team.create({ name: "Crew" });
    const plain = await as(users.owner).team.createInvite({ teamId: team.id, role: "admin", email: users.admin.email });
    expect(plain).toMatchObject({ emailed: false, path: expect.stringMatching(/^\/join\/[A-Za-z0-9_-]{43}$/) });

    const mailing = {
      ...env.services,
      config: { ...env.services.config, publicUrl: "https://tandem.example.com" },
      extensions: {
        agent: {
          mail: {
            from: "tandem@example.com",
            send: async (m: (typeof sent)[number]) => (sent.push(m), { messageId: "1" }),
          },
        },
      },
    } as unknown as Services;
    expect((await as(users.owner, mailing).team.get({ teamId: team.id })).emailsInvites).toBe(true);
    const mailed = await as(users.owner, mailing).team.createInvite({
      teamId: team.id,
      role: "member",
      email: users.joiner.email,
    });
    expect(mailed.emailed).toBe(true);
    expect(sent[0]!.to).toEqual([users.joiner.email]);
    expect(sent[0]!.body).toContain(`https://tandem.example.com${mailed.path}`);

    await expect(as(users.admin).team.acceptInvite({ token: mailed.path.slice(6) })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await as(users.admin).team.acceptInvite({ token: plain.path.slice(6) });
    await as(users.joiner).team.acceptInvite({ token: mailed.path.slice(6) });
    expect((await as(users.joiner).team.list()).find((t) => t.id === team.id)?.role).toBe("member");
  });

  it("keeps owners in charge of owners, and always one owner", async () => {
    const team = await as(users.owner).team.create({ name: "Owners" });
    const invite = await as(users.owner).team.createInvite({ teamId: team.id, role: "admin" });
    await as(users.admin).team.acceptInvite({ token: invite.path.slice(6) });
    await expect(
      as(users.admin).team.setRole({ teamId: team.id, userId: users.admin.id, role: "owner" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as(users.admin).team.removeMember({ teamId: team.id, userId: users.owner.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(
      as(users.owner).team.setRole({ teamId: team.id, userId: users.owner.id, role: "admin" }),
    ).rejects.toMatchObject({ code: "PRECONDITION_FAILED" });
    await as(users.owner).team.setRole({ teamId: team.id, userId: users.admin.id, role: "owner" });
    await as(users.owner).team.removeMember({ teamId: team.id, userId: users.owner.id });
    expect((await as(users.admin).team.members({ teamId: team.id })).map((m) => m.role)).toEqual(["owner"]);
  });

  it("creates projects only in teams where the caller may write", async () => {
    const team = await as(users.owner).team.create({ name: "Projects" });
    const invite = await as(users.owner).team.createInvite({ teamId: team.id, role: "viewer" });
    await as(users.joiner).team.acceptInvite({ token: invite.path.slice(6) });
    await expect(as(users.joiner).project.create({ name: "Nope", teamId: team.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(as(users.admin).project.create({ name: "Nope", teamId: team.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    const project = await as(users.owner).project.create({ name: "Yes", teamId: team.id });
    expect((await as(users.joiner).project.get({ projectId: project.id })).role).toBe("viewer");
  });
});
