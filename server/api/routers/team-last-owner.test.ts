import { afterAll, beforeAll, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import type { Context } from "@/server/api/context";
import { countOwners } from "@/server/db/repositories/teams";
import { createTestServices } from "@/server/test/services";

// A team always keeps an owner, also when its two owners act at once: each demoting the other, or
// one leaving while demoting the other. Each checks "another owner is left" before it acts; done
// at the same moment, both checks saw two owners and the team was left with none (and nobody who
// could ever make an owner again).

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
type User = NonNullable<Context["user"]>;
const as = (user: User) => createCaller({ ...env.context(user), clientIp: `test-${Math.random()}` });

beforeAll(async () => {
  env = await createTestServices();
}, 60_000);
afterAll(() => env?.dispose());

async function twoOwners() {
  const [ann, bob] = [await env.createUser(), await env.createUser()];
  const team = await as(ann).team.create({ name: `Owners ${Math.random()}` });
  const invite = await as(ann).team.createInvite({ teamId: team.id, role: "admin" });
  await as(bob).team.acceptInvite({ token: invite.path.slice(6) });
  await as(ann).team.setRole({ teamId: team.id, userId: bob.id, role: "owner" });
  return { ann, bob, teamId: team.id };
}

it("keeps an owner when both owners demote each other at once, or one leaves while demoting the other", async () => {
  for (let round = 0; round < 15; round++) {
    const { ann, bob, teamId } = await twoOwners();
    const moves =
      round % 2 === 0
        ? [
            as(ann).team.setRole({ teamId, userId: bob.id, role: "admin" }),
            as(bob).team.setRole({ teamId, userId: ann.id, role: "admin" }),
          ]
        : [
            as(ann).team.setRole({ teamId, userId: bob.id, role: "member" }),
            as(ann).team.removeMember({ teamId, userId: ann.id }),
          ];
    const results = await Promise.allSettled(moves);
    expect(await countOwners(env.services.db, teamId), `round ${round}`).toBe(1);
    // One of the two went through, the other was refused with the reason.
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    // Refused as the last owner, or, when the other's demotion landed first, as no longer an owner.
    expect(["PRECONDITION_FAILED", "FORBIDDEN"]).toContain((refused.reason as { code: string }).code);
  }
});
