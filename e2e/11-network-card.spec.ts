import http from "node:http";
import type { AddressInfo } from "node:net";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// The session card for a host the egress proxy refused: the agent's shell fetches a test host
// that is not on the project's allow-list, the card asks "Allow <host> for this project?", the
// project's admin allows it, the card says who did, and the same command then gets through.

test("a refused host is allowed from the session's card and the retried command succeeds", async ({ page, ide }) => {
  test.skip(process.env.E2E_SANDBOX === "none", "the egress proxy needs bubblewrap (apt-get install bubblewrap)");
  const server = http.createServer((_req, res) => res.end("hello from the registry"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const command = `curl -s -w ' code %{http_code}' http://registry.e2e.test:${port}/`;
  const agent = new AgentPanel(page);
  try {
    await agent.script([
      {
        toolCalls: [
          { id: "call_fetch", name: "shell", arguments: { command, description: "Fetch the registry page" } },
        ],
      },
      // The tool result the model reads names the host and says how to allow it.
      {
        match:
          'refused registry.e2e.test (this project\'s network policy is allow-list). A project admin can allow this host in the project settings (Network), or with the "Allow registry.e2e.test for this project?" card',
        text: "The sandbox refused registry.e2e.test.",
      },
      {
        match: "Try again",
        toolCalls: [
          {
            id: "call_fetch_again",
            name: "shell",
            arguments: { command, description: "Fetch the registry page again" },
          },
        ],
      },
      { match: "hello from the registry", text: "Fetched it: hello from the registry." },
    ]);
    await ide.signIn(admin);
    await ide.createProject("Network card");
    await agent.ask("Fetch the registry page");
    const first = agent.toolCard("Fetch the registry page");
    await first.getByTestId("approve").click();
    await expect(agent.assistantMessages().last().locator(".markdown")).toHaveText(
      "The sandbox refused registry.e2e.test.",
    );
    await expect(first).toContainText("code 403");

    const card = page.getByTestId("network-denied-card");
    await expect(card).toHaveCount(1);
    await expect(card).toContainText("Allow registry.e2e.test for this project?");
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath("agent-network-denied") });
    await card.getByTestId("network-allow").click();
    await expect(card.getByTestId("network-allowed")).toHaveText(
      "registry.e2e.test allowed for this project by Ada Admin.",
    );
    await page.screenshot({ path: screenshotPath("agent-network-allowed") });

    await agent.send("Try again");
    const second = agent.toolCard("Fetch the registry page again");
    await second.getByTestId("approve").click();
    await expect(agent.assistantMessages().last().locator(".markdown")).toHaveText(
      "Fetched it: hello from the registry.",
    );
    await expect(second).toContainText("hello from the registry code 200");
    // Allowed hosts raise no card.
    await expect(card).toHaveCount(1);

    // The host is on the project's list in the settings.
    const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
    await page.goto(`/p/${projectId}/settings`);
    await expect(page.getByTestId("network-hosts")).toHaveValue(/^registry\.e2e\.test$/m);

    // The admin page says which sandbox and limits are in force, as the start-up line does.
    await page.goto("/admin");
    const inForce = page.getByTestId("sandbox-in-force");
    await expect(inForce).toContainText("sandbox: bubblewrap");
    await expect(inForce).toContainText("MiB disk per workspace");
    await expect(inForce).toContainText(/cgroups(: not used| v2 per sandbox)/);
    await page.getByTestId("sandbox-card").scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath("admin-sandbox") });
  } finally {
    server.close();
  }
});
