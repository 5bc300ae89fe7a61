import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { protectedProcedure, publicProcedure, router, teamAdminProcedure, teamProcedure } from "@/server/api/trpc";
import * as teams from "@/server/db/repositories/teams";
import { findPersonByEmail } from "@/server/db/repositories/notifications";
import { internalHostEntry } from "@/lib/egress-policy";
import type { MailSender } from "@/server/tools/send-email";

// Teams: who is in them and with which role. Owners and admins manage members and invitations;
// only an owner makes or unmakes another owner, and a team always keeps one.

const teamName = z.string().trim().min(1, "Give the team a name").max(100);
const role = z.enum(teams.TEAM_ROLES);

/** Invitations go by email only when SMTP is set up and the server knows its public address. */
function inviteMail(services: { config: { publicUrl?: string }; extensions?: { agent: { mail?: MailSender } } }) {
  const sender = services.extensions?.agent.mail;
  return sender && services.config.publicUrl ? { sender, publicUrl: services.config.publicUrl } : null;
}

async function limited(ctx: {
  services: { limits: { take(bucket: "invitation", key: string): Promise<boolean> } };
  clientIp?: string;
}) {
  if (!(await ctx.services.limits.take("invitation", ctx.clientIp ?? "unknown"))) {
    throw new TRPCError({
      code: "TOO_MANY_REQUESTS",
      message: "Too many invitation attempts from your address. Wait a minute and try again.",
    });
  }
}

/** A membership change the repository refused (it keeps the team's last owner, under a lock). */
function refuseChange(result: "changed" | "not_member" | "last_owner") {
  if (result === "not_member") throw new TRPCError({ code: "NOT_FOUND", message: "That person is not in this team." });
  if (result === "last_owner")
    throw new TRPCError({
      code: "PRECONDITION_FAILED",
      message: "A team needs an owner: make someone else an owner first.",
    });
}

export const teamRouter = router({
  list: protectedProcedure.query(async ({ ctx }) => {
    await teams.ensurePersonalTeam(ctx.services.db, ctx.user);
    return teams.listTeamsForUser(ctx.services.db, ctx.user.id);
  }),

  create: protectedProcedure
    .input(z.object({ name: teamName }))
    .mutation(({ ctx, input }) => teams.createTeam(ctx.services.db, { name: input.name, ownerId: ctx.user.id })),

  get: teamProcedure.query(({ ctx }) => ({
    ...ctx.team,
    role: ctx.teamRole,
    emailsInvites: inviteMail(ctx.services) !== null,
  })),

  members: teamProcedure.query(({ ctx }) => teams.listMembers(ctx.services.db, ctx.team.id)),

  rename: teamAdminProcedure
    .input(z.object({ name: teamName }))
    .mutation(({ ctx, input }) => teams.renameTeam(ctx.services.db, ctx.team.id, input.name)),

  /** Internal hosts and ranges the team's projects may reach, and the server's own (set by its admin, shown for context). */
  internalHosts: teamProcedure.query(async ({ ctx }) => ({
    team: await teams.getTeamInternalHosts(ctx.services.db, ctx.team.id),
    server: ctx.services.config.internalHosts,
  })),

  setInternalHosts: teamAdminProcedure
    .input(z.object({ entries: z.array(internalHostEntry).max(200) }))
    .mutation(({ ctx, input }) => ctx.services.network.setTeamInternalHosts(ctx.team.id, input.entries)),

  setRole: teamAdminProcedure.input(z.object({ userId: z.string().min(1), role })).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const target = await teams.findTeamRole(db, ctx.team.id, input.userId);
    if (!target) throw new TRPCError({ code: "NOT_FOUND", message: "That person is not in this team." });
    if ((target.role === "owner" || input.role === "owner") && ctx.teamRole !== "owner") {
      throw new TRPCError({ code: "FORBIDDEN", message: "Only an owner can make or unmake an owner." });
    }
    refuseChange(await teams.setMemberRole(db, ctx.team.id, input.userId, input.role));
    ctx.services.accessChanges.publish({ kind: "user", userId: input.userId });
    return { userId: input.userId, role: input.role };
  }),

  /** Removes a member; anyone may remove themselves (leave). */
  removeMember: teamProcedure.input(z.object({ userId: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const db = ctx.services.db;
    const self = input.userId === ctx.user.id;
    if (!self && ctx.teamRole !== "owner" && ctx.teamRole !== "admin") {
      throw new TRPCError({
        code: "FORBIDDEN",
        message: "Only the team's owners and admins manage its members and settings.",
      });
    }
    const target = await teams.findTeamRole(db, ctx.team.id, input.userId);
    if (!target) throw new TRPCError({ code: "NOT_FOUND", message: "That person is not in this team." });
    if (target.role === "owner" && !self && ctx.teamRole !== "owner")
      throw new TRPCError({ code: "FORBIDDEN", message: "Only an owner can remove an owner." });
    refuseChange(await teams.removeMember(db, ctx.team.id, input.userId));
    ctx.services.accessChanges.publish({ kind: "user", userId: input.userId });
    return { userId: input.userId };
  }),

  invites: teamAdminProcedure.query(({ ctx }) => teams.listTeamInvites(ctx.services.db, ctx.team.id)),

  /**
   * A one-use link (/join/<token>); the token is returned once. With an email address, and SMTP and
   * TANDEM_PUBLIC_URL configured, the link is also mailed; otherwise it is shown to copy and send.
   */
  createInvite: teamAdminProcedure
    .input(
      z.object({
        role: role.exclude(["owner"]).default("member"),
        email: z.email().optional(),
        ttlDays: z.number().int().min(1).max(30).default(7),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const invite = await teams.createTeamInvite(ctx.services.db, {
        teamId: ctx.team.id,
        role: input.role,
        email: input.email,
        createdById: ctx.user.id,
        ttlDays: input.ttlDays,
      });
      const path = `/join/${invite.token}`;
      const mail = inviteMail(ctx.services);
      let emailed = false;
      if (mail && input.email) {
        await mail.sender.send({
          to: [input.email],
          subject: `${ctx.user.name} invites you to ${ctx.team.name} on Tandem`,
          body: `${ctx.user.name} invites you to join the team "${ctx.team.name}" on Tandem as ${input.role}.\n\nOpen this link to join (it works once, until ${invite.expiresAt.toDateString()}):\n${new URL(path, mail.publicUrl).toString()}\n`,
        });
        emailed = true;
      }
      // Someone who already has an account also finds it in their inbox. The link's token is not
      // kept there (tokens are stored only as hashes): the invitation's email or link carries it.
      const invitee = input.email ? await findPersonByEmail(ctx.services.db, input.email) : null;
      if (invitee && invitee !== ctx.user.id)
        await ctx.services.notifications.notify(invitee, {
          kind: "invitation",
          title: `${ctx.user.name} invites you to the team "${ctx.team.name}" as ${input.role}`,
          body: "Open the invitation link you were sent (by email, or ask them for it) to join.",
          link: "/",
        });
      return { ...invite, path, emailed };
    }),

  revokeInvite: teamAdminProcedure.input(z.object({ inviteId: z.string().uuid() })).mutation(async ({ ctx, input }) => {
    await teams.revokeTeamInvite(ctx.services.db, ctx.team.id, input.inviteId);
    return { id: input.inviteId };
  }),

  /** What the /join/<token> page shows. Rate limited per address. */
  inviteInfo: publicProcedure.input(z.object({ token: z.string().min(1).max(200) })).query(async ({ ctx, input }) => {
    await limited(ctx);
    const check = await teams.checkTeamInvite(ctx.services.db, input.token);
    // The address a link was made for fills the sign-up form of the person who holds it.
    return check.ok
      ? { ok: true as const, team: check.team, role: check.role, email: check.email }
      : { ok: false as const, reason: check.reason };
  }),

  acceptInvite: protectedProcedure
    .input(z.object({ token: z.string().min(1).max(200) }))
    .mutation(async ({ ctx, input }) => {
      await limited(ctx);
      const db = ctx.services.db;
      const check = await teams.checkTeamInvite(db, input.token);
      if (!check.ok) throw new TRPCError({ code: "BAD_REQUEST", message: check.reason });
      if (check.email && check.email !== ctx.user.email.toLowerCase()) {
        throw new TRPCError({ code: "FORBIDDEN", message: "This invitation was made for another email address." });
      }
      if (!(await teams.acceptTeamInvite(db, check.id, check.team.id, ctx.user.id, check.role))) {
        throw new TRPCError({ code: "CONFLICT", message: "This invitation link has just been used by someone else." });
      }
      return { team: check.team };
    }),
});
