import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// `@` in the composer: fuzzy completion over the workspace's files and folders, the mention shown
// as a chip, and the file's content sent with the message (the scripted model server records what
// it was asked); the sent message keeps its chips.

const controlUrl = `http://127.0.0.1:${process.env.E2E_MODEL_CONTROL_PORT ?? 3102}`;

test("@-mentions: completion over files and folders, chips, content attached", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([{ match: "explain", text: "It is a changelog." }]);
  await ide.signIn(admin);
  await ide.createProject("Mentions");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  await fs.mkdir(path.join(workspace, "docs"), { recursive: true });
  await fs.writeFile(path.join(workspace, "docs/CHANGELOG.md"), "## 1.2.0\n- the purple widget\n");
  await fs.writeFile(path.join(workspace, "main.ts"), "console.log(1);\n");

  await agent.newSession();
  const input = page.getByTestId("composer-input");
  await input.pressSequentially("explain @chlog");
  const items = page.getByTestId("completion-item");
  await expect(items.first()).toContainText("@docs/CHANGELOG.md");
  await page.getByTestId("completion").screenshot({ path: screenshotPath("mention-completion") });
  await input.press("Enter");
  await expect(input).toHaveValue("explain @docs/CHANGELOG.md ");
  await input.pressSequentially("in @doc");
  await expect(page.getByTestId("completion")).toContainText("Folder");
  await input.press("Escape");
  await expect(page.getByTestId("completion")).toHaveCount(0);
  await expect(page.getByTestId("mention-chip")).toHaveText(["@docs/CHANGELOG.md"]);
  await input.press("Enter");

  await expect(agent.assistantMessages().last()).toContainText("It is a changelog.");
  await expect(agent.userMessages().last().getByTestId("mention-chip")).toHaveText(["@docs/CHANGELOG.md"]);
  await page.screenshot({ path: screenshotPath("mention-sent") });
  const requests = (await (await fetch(`${controlUrl}/requests`)).json()) as Array<{
    messages: Array<{ role: string; content: unknown }>;
  }>;
  const asked = requests.findLast((r) => JSON.stringify(r.messages).includes("explain @docs/CHANGELOG.md"))!;
  expect(String(asked.messages.findLast((m) => m.role === "user")!.content)).toContain("the purple widget");
});

test("the IDE lists the workspace for mentions only once a message has an @; one sent at once still carries its file", async ({
  page,
  ide,
}) => {
  const agent = new AgentPanel(page);
  await agent.script([{ match: "summarize", text: "It logs one." }]);
  await ide.signIn(admin);
  await ide.createProject("Mentions sent at once");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  await fs.writeFile(path.join(workspace, "main.ts"), "console.log('the orange gadget');\n");
  const listings: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname.split("/").at(-1)!.split(",").includes("fs.files"))
      listings.push(request.url());
  });
  await page.reload();
  await agent.newSession();
  const input = page.getByTestId("composer-input");
  await input.pressSequentially("please summarize the file");
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "live");
  expect(listings).toHaveLength(0);

  // Pasted, and sent before any list could come back: the send reads it first.
  await input.fill("please summarize @main.ts");
  await input.press("Enter");
  await expect(agent.assistantMessages().last()).toContainText("It logs one.");
  await expect(agent.userMessages().last().getByTestId("mention-chip")).toHaveText(["@main.ts"]);
  const requests = (await (await fetch(`${controlUrl}/requests`)).json()) as Array<{
    messages: Array<{ role: string; content: unknown }>;
  }>;
  const asked = requests.findLast((r) => JSON.stringify(r.messages).includes("please summarize @main.ts"))!;
  expect(String(asked.messages.findLast((m) => m.role === "user")!.content)).toContain("the orange gadget");
});
