import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";

// `@` mentions in a message: a file and a folder are attached as read_many_files reads them (the
// model gets the content with the message), and a URL goes through web_fetch's rules, so a
// loopback address is refused, as it would be for the agent.

let h: Awaited<ReturnType<typeof createAgentHarness>>;
beforeAll(async () => {
  h = await createAgentHarness({ coreTools: true });
  const root = path.join(h.env.dataDir, "workspaces", h.project.id);
  await fs.mkdir(path.join(root, "src/lib"), { recursive: true });
  await fs.writeFile(path.join(root, "README.md"), "# Demo\nThe answer is forty-two.\n");
  await fs.writeFile(path.join(root, "src/lib/util.ts"), "export const util = 1;\n");
});
afterAll(() => h.dispose());

describe("@ mentions", () => {
  it("attaches mentioned files and folders with the message, for the model", async () => {
    const session = await h.newSession({ replies: [{ text: "Read them." }] });
    await h.caller.session.send({
      sessionId: session.id,
      text: "look at @README.md and @src/lib",
      mentions: ["README.md", "src/lib"],
    });
    await h.agent.idle(session.id);
    const message = only(await h.events(session.id), "user_message")[0]!.payload;
    expect(message.mentions?.map((m) => [m.ref, m.kind, m.ok])).toEqual([
      ["README.md", "path", true],
      ["src/lib", "path", true],
    ]);
    const sent = String(h.model.requests.at(-1)!.messages.findLast((m) => m.role === "user")!.content);
    expect(sent).toContain("look at @README.md and @src/lib");
    expect(sent).toContain("The answer is forty-two.");
    expect(sent).toContain("export const util = 1;");
  });

  it("fetches an @url through web_fetch's rules: a loopback address is refused", async () => {
    // Open: the project's policy lets any host through, so the address check is what refuses.
    await h.caller.network.update({ projectId: h.project.id, policy: "open", allowHosts: [] });
    const session = await h.newSession({ replies: [{ text: "ok" }] });
    await h.caller.session.send({
      sessionId: session.id,
      text: "see @http://127.0.0.1:9/secret",
      mentions: ["http://127.0.0.1:9/secret"],
    });
    await h.agent.idle(session.id);
    const mention = only(await h.events(session.id), "user_message")[0]!.payload.mentions![0]!;
    expect(mention).toMatchObject({ ref: "http://127.0.0.1:9/secret", kind: "url", ok: false });
    expect(mention.text).toMatch(/loopback|private|not allowed|blocked/i);
  });

  it("a missing path is attached as a failure the model can read", async () => {
    const session = await h.newSession({ replies: [{ text: "ok" }] });
    await h.caller.session.send({ sessionId: session.id, text: "and @nope.txt", mentions: ["nope.txt"] });
    await h.agent.idle(session.id);
    const mention = only(await h.events(session.id), "user_message")[0]!.payload.mentions![0]!;
    expect(mention.ref).toBe("nope.txt");
    expect(mention.text).toMatch(/nope\.txt/);
  });
});
