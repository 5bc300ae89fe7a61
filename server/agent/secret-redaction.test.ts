import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCallerFactory } from "@/server/api/trpc";
import { appRouter } from "@/server/api/root";
import { addMember } from "@/server/db/repositories/teams";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { describeSandboxed } from "@/server/test/sandbox-guard";

// A project secret and the session author's own secret reach the agent's shell in bubblewrap; every
// way a command can show them (env, /proc/self/environ, base64, URL encoding, hex, a deliberate echo)
// comes back as [secret NAME] to the model, in the stored log, to a view link and in the files
// Tandem writes into the workspace.

// Characters that URL encoding changes, so its form differs from the value.
const TOKEN = "tok+9f8e/7d6c=5b4a&3210";
const OWN = "own-key-0123456789abcdef";
const createCaller = createCallerFactory(appRouter);
let h: Awaited<ReturnType<typeof createAgentHarness>>;

beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true, extensions: {}, sandbox: "bwrap" });
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
  await h.caller.secret.projectSet({ projectId: h.project.id, name: "API_TOKEN", value: TOKEN });
  await h.caller.secret.set({ name: "OWN_KEY", value: OWN });
});
afterAll(() => h?.dispose());

const shell = (id: string, command: string) => ({ id, name: "shell", arguments: { command } });
const forms = (value: string) => [
  value,
  Buffer.from(value).toString("base64").slice(0, 16),
  encodeURIComponent(value),
  Buffer.from(value).toString("hex"),
];
function expectHidden(text: string, where: string) {
  for (const value of [TOKEN, OWN])
    for (const form of forms(value)) expect(text, `${where}: ${form}`).not.toContain(form);
}

async function filesUnder(dir: string): Promise<string> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const texts = await Promise.all(
    entries.filter((e) => e.isFile()).map((e) => fs.readFile(path.join(e.parentPath, e.name), "utf8")),
  );
  return texts.join("\n");
}

describeSandboxed("secrets in the agent's shell", () => {
  it("reach commands by name and come back redacted to the model, the log, a view link and Tandem's files", async () => {
    const session = await h.newSession({
      replies: [
        {
          toolCalls: [
            shell("c1", "env | grep -E '^(API_TOKEN|OWN_KEY)=' | sort"),
            shell("c2", "cat /proc/self/environ | tr '\\0' '\\n' | grep API_TOKEN"),
            shell("c3", 'printf %s "$API_TOKEN" | base64; printf %s "$OWN_KEY" | base64'),
            shell(
              "c4",
              `python3 -c 'import os, urllib.parse; print(urllib.parse.quote(os.environ["API_TOKEN"], safe=""))'`,
            ),
            shell("c5", 'printf %s "$API_TOKEN" | od -An -tx1 | tr -d " \\n"; echo'),
            shell("c6", 'echo "the token is $API_TOKEN and mine is $OWN_KEY"; export KEPT=1'),
          ],
        },
        { match: "", text: "Done." },
      ],
    });
    const events = await h.send(session.id, "Show me the secrets");
    const results = only(events, "tool_result");
    expect(results.map((r) => r.payload.ok)).toEqual([true, true, true, true, true, true]);
    const byId = (id: string) => results.find((r) => r.payload.toolCallId === id)!.payload.llm;
    expect(byId("c1")).toContain("API_TOKEN=[secret API_TOKEN]");
    expect(byId("c1")).toContain("OWN_KEY=[secret OWN_KEY]");
    expect(byId("c2")).toContain("API_TOKEN=[secret API_TOKEN]");
    expect(byId("c3")).toContain("[secret API_TOKEN]");
    expect(byId("c3")).toContain("[secret OWN_KEY]");
    expect(byId("c4")).toContain("[secret API_TOKEN]");
    expect(byId("c5")).toContain("[secret API_TOKEN]");
    expect(byId("c6")).toContain("the token is [secret API_TOKEN] and mine is [secret OWN_KEY]");

    // What the model was sent: the names in its environment block, never a value.
    const sent = JSON.stringify(h.model.requests);
    expectHidden(sent, "model requests");
    expect(sent).toContain("$API_TOKEN");
    expect(sent).toContain("$OWN_KEY");
    expect(sent).toContain("[secret API_TOKEN]");

    // The stored log, as it is in the database.
    expectHidden(JSON.stringify(await h.events(session.id)), "stored events");

    // A view link reads the same redacted log.
    const link = await h.caller.share.create({ sessionId: session.id, scope: "view", label: "guest" });
    const guest = createCaller({ ...h.env.context(null), shareToken: link.token });
    const seen: unknown[] = [];
    const stream = await guest.session.events({ sessionId: session.id });
    const iterator = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    const first = await iterator.next();
    seen.push(first.value);
    await iterator.return?.();
    expect(JSON.stringify(seen)).toContain("[secret API_TOKEN]");
    expectHidden(JSON.stringify(seen), "view link");
    await expect(guest.secret.projectList({ projectId: h.project.id })).rejects.toMatchObject({ code: "UNAUTHORIZED" });

    // The shell's state file and output logs live in the workspace, which every member reads.
    const workspace = path.join(h.env.dataDir, "workspaces", h.project.id);
    const written = await filesUnder(path.join(workspace, ".tandem"));
    expect(written).toContain("KEPT");
    expectHidden(written, "workspace .tandem files");
  });

  it("gives another project none of them, and drops the author's own once someone else writes in the session", async () => {
    const other = await h.caller.project.create({ name: "Other project" });
    await h.caller.agent.updateSettings({ projectId: other.id, approvalMode: "yolo" });
    h.model.load({
      replies: [
        { toolCalls: [shell("o1", 'echo "token=${API_TOKEN:-none} own=${OWN_KEY:-none}"')] },
        { match: "", text: "Done." },
      ],
    });
    const elsewhere = await h.caller.session.create({ projectId: other.id });
    const otherEvents = await h.send(elsewhere.id, "What is set?");
    expect(only(otherEvents, "tool_result")[0]!.payload.llm).toContain("token=none own=[secret OWN_KEY]");

    // In the first project, a teammate writes into the author's session.
    const teammate = await h.env.createUser();
    const project = await h.caller.project.get({ projectId: h.project.id });
    await addMember(h.env.services.db, project.teamId, teammate.id, "member");
    const session = await h.newSession({
      replies: [
        { toolCalls: [shell("m1", 'echo "token=${API_TOKEN:-none} own=${OWN_KEY:-none}"')] },
        { match: "", text: "Done." },
        { toolCalls: [shell("m2", 'echo "token=${API_TOKEN:-none} own=${OWN_KEY:-none}"')] },
        { match: "", text: "Done again." },
      ],
    });
    const before = await h.send(session.id, "What is set?");
    expect(only(before, "tool_result")[0]!.payload.llm).toContain("own=[secret OWN_KEY]");
    await createCaller(h.env.context(teammate)).session.send({ sessionId: session.id, text: "And now?" });
    await h.agent.idle(session.id);
    const after = only(await h.events(session.id), "tool_result").at(-1)!.payload.llm;
    expect(after).toContain("token=[secret API_TOKEN] own=none");
  });

  it("hides a value in a file mentioned with @ from the stored message and the model", async () => {
    const workspace = path.join(h.env.dataDir, "workspaces", h.project.id);
    await fs.writeFile(path.join(workspace, "deploy.env"), `API_TOKEN=${TOKEN}\n`);
    const session = await h.newSession({ replies: [{ match: "", text: "I see the file." }] });
    await h.caller.session.send({ sessionId: session.id, text: "Look at @deploy.env", mentions: ["deploy.env"] });
    await h.agent.idle(session.id);
    const stored = JSON.stringify(await h.events(session.id));
    expect(stored).toContain("API_TOKEN=[secret API_TOKEN]");
    expectHidden(stored, "stored message");
    expectHidden(JSON.stringify(h.model.requests), "model requests");
  });
});
