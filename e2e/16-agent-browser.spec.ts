import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// The agent looks at the app it started: a background server in the workspace's network, opened
// in the agent's browser through the project's preview; each action is a tool card with its
// screenshot, a thumbnail that opens larger.

const APP = `require("http").createServer((req, res) => {
  res.setHeader("content-type", "text/html");
  res.end('<!doctype html><title>Shop</title><body style="font:32px sans-serif;background:#fde68a"><h1>Welcome to the shop</h1><button>Buy</button>');
}).listen(5173, () => console.log("ready on 5173"));
`;

const post = (page: import("@playwright/test").Page, procedure: string, json: unknown) =>
  page.evaluate(
    async ({ procedure, json }) =>
      (
        await fetch(`/api/trpc/${procedure}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ json }),
        })
      ).status,
    { procedure, json },
  );

test("the agent opens its server in the browser; the card shows the screenshot", async ({ page, ide }) => {
  test.skip(process.env.E2E_SANDBOX === "none", "workspace networks need bubblewrap (apt-get install bubblewrap)");
  const agent = new AgentPanel(page);
  await ide.signIn(admin);
  await ide.createProject("Shop");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  await fs.writeFile(path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId, "app.js"), APP);
  expect(await post(page, "agent.updateSettings", { projectId, approvalMode: "yolo" })).toBe(200);
  expect(
    await post(page, "model.setSettings", {
      model: "openai-compatible:scripted",
      inputPerMTok: null,
      outputPerMTok: null,
      contextWindow: null,
      acceptsImages: true,
    }),
  ).toBe(200);
  await agent.script([
    {
      match: "look at the shop",
      toolCalls: [{ name: "shell", arguments: { command: "node app.js", run_in_background: true } }],
    },
    {
      toolCalls: [
        {
          name: "shell",
          arguments: { command: "curl -s --retry 20 --retry-connrefused --retry-delay 1 http://localhost:5173/" },
        },
      ],
    },
    { toolCalls: [{ name: "browser", arguments: { action: "navigate", url: "http://localhost:5173/" } }] },
    { text: "The shop's page shows its welcome and a Buy button." },
  ]);
  await agent.ask("look at the shop in the browser");
  await expect(agent.assistantMessages().last()).toContainText("Buy button", { timeout: 60_000 });

  const card = agent.toolCard("Open http://localhost:5173/");
  await expect(card).toContainText("Page: Shop — http://localhost:5173/");
  const thumbnail = card.getByTestId("message-image");
  await expect(thumbnail).toBeVisible();
  expect(await thumbnail.getAttribute("src")).toMatch(/^blob:/);
  await card.screenshot({ path: screenshotPath("agent-browser-card") });
  // The thumbnail opens the screenshot at full size.
  const opened = page.context().waitForEvent("page");
  await thumbnail.click();
  const full = await opened;
  await full.waitForLoadState();
  await full.screenshot({ path: screenshotPath("agent-browser-full") });
  await full.close();
});
