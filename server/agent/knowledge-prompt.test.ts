import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness } from "@/server/test/agent-harness";

// The knowledge base in the prompt without a tool call: a question brings the passages that
// clearly match it into the system prompt with path:lines to cite; a message that asks nothing,
// or a question nothing matches, brings none.

let h: Awaited<ReturnType<typeof createAgentHarness>>;

beforeAll(async () => {
  h = await createAgentHarness({ extensions: {} });
  const workspace = await h.env.services.files.open(h.project.id);
  await fs.mkdir(path.join(workspace.root, "docs"), { recursive: true });
  await fs.writeFile(
    path.join(workspace.root, "docs/deploy.md"),
    "# Deploying\n\nReleases go to the staging cluster first, then to production after the smoke tests pass.\nRollback uses the previous image tag.\n",
  );
  await fs.writeFile(path.join(workspace.root, "docs/fonts.md"), "# Fonts\n\nThe site uses the system font stack.\n");
  await h.env.services.extensions!.knowledge.settled(h.project.id, workspace);
}, 60_000);
afterAll(() => h?.dispose());

const systemPrompt = () => {
  const request = h.model.requests.at(-1)!;
  return request.messages.find((m) => m.role === "system")?.content as string;
};

describe("knowledge in the prompt", () => {
  it("puts the passages that clearly match a question in the prompt, with path:lines to cite", async () => {
    const session = await h.newSession({ replies: [{ match: "", text: "Staging first (docs/deploy.md:1-5)." }] });
    await h.send(session.id, "How do releases reach production after staging?");
    const prompt = systemPrompt();
    expect(prompt).toContain("## From the project's knowledge base");
    expect(prompt).toMatch(/### docs\/deploy\.md:\d+-\d+\n# Deploying/);
    expect(prompt).not.toContain("system font stack");
  }, 60_000);

  it("leaves the knowledge base out for a message that asks nothing, or a question nothing matches", async () => {
    const session = await h.newSession({ replies: [{ match: "", text: "Done." }] });
    await h.send(session.id, "Rename the staging releases variable.");
    expect(systemPrompt()).not.toContain("## From the project's knowledge base");
    await h.send(session.id, "What is the capital of Peru?");
    expect(systemPrompt()).not.toContain("## From the project's knowledge base");
  }, 60_000);
});
