import { afterAll, beforeAll, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { addMember, createTeam } from "@/server/db/repositories/teams";
import { createTestServices } from "@/server/test/services";

// A project's MCP servers carry the team's keys to other services: an API key in a stdio server's
// `env`, a bearer token in a remote server's `headers` (docs/examples/mcp-servers.json). Only the
// project's admins set them, and the settings page is read by everyone in the team: a viewer (or a
// read-only API token) asking for the settings got every key as the admin typed it.

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
type Person = NonNullable<Parameters<typeof env.context>[0]>;
const people: Record<"owner" | "member" | "viewer", Person> = {} as never;
let projectId: string;
const as = (user: Person) => createCaller(env.context(user));

const KEY = "lin_api_0123456789abcdefKEY";
const TOKEN = "Bearer sk-remote-0123456789TOKEN";

beforeAll(async () => {
  env = await createTestServices({ extensions: {} });
  for (const role of ["owner", "member", "viewer"] as const) people[role] = await env.createUser();
  const team = await createTeam(env.services.db, { name: "Acme", ownerId: people.owner.id });
  await addMember(env.services.db, team.id, people.member.id, "member");
  await addMember(env.services.db, team.id, people.viewer.id, "viewer");
  projectId = (await as(people.owner).project.create({ name: "App", teamId: team.id })).id;
  const saved = await as(people.owner).extensions.updateSettings({
    projectId,
    mcpServersText: JSON.stringify({
      mcpServers: {
        linear: { command: "npx", args: ["-y", "linear-mcp-server"], env: { LINEAR_API_KEY: KEY } },
        remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: TOKEN } },
      },
    }),
  });
  expect(saved).toEqual({ ok: true });
});
afterAll(() => env.dispose());

it("shows the MCP servers' keys to the project's admins only", async () => {
  const text = async (who: Person) => (await as(who).extensions.settings({ projectId })).mcpServersText;
  expect(await text(people.owner)).toContain(KEY);
  expect(await text(people.owner)).toContain(TOKEN);
  for (const who of [people.member, people.viewer]) {
    const shown = await text(who);
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain(TOKEN);
    // What is configured still shows: the servers, the names of their variables and headers.
    expect(shown).toContain("LINEAR_API_KEY");
    expect(shown).toContain("Authorization");
    expect(shown).toContain("linear-mcp-server");
  }
});
