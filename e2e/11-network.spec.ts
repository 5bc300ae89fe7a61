import http from "node:http";
import type { AddressInfo } from "node:net";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { IdePage } from "./pages/ide";

// The Network section of the project settings: a project admin changes the policy and the
// allow-list, then `curl` in a terminal reaches a local server through the egress proxy and the
// connection shows up in the log live, beside one the list refused.

test("network policy, allow-list and the live connection log", async ({ page, ide }) => {
  test.skip(process.env.E2E_SANDBOX === "none", "the egress proxy needs bubblewrap (apt-get install bubblewrap)");
  const server = http.createServer((_req, res) => res.end("hello from the registry"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  try {
    await ide.signIn(admin);
    await ide.createProject("Networked");
    const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;

    await page.goto(`/p/${projectId}/settings`);
    const card = page.getByTestId("network-card");
    await expect(page.getByTestId("network-policy")).toHaveValue("allow-list");
    await expect(page.getByTestId("network-hosts")).toHaveValue(/registry\.npmjs\.org/);
    await page.getByTestId("network-hosts").fill("registry.e2e.test\n*.npmjs.org");
    await page.getByTestId("network-save").click();
    await expect(page.getByTestId("network-save")).toBeDisabled();
    await expect(card.getByText("No connections yet.")).toBeVisible();

    // A terminal in a second tab; the settings page keeps listening.
    const ideTab = await page.context().newPage();
    await ideTab.goto(`/p/${projectId}`);
    const terminalIde = new IdePage(ideTab);
    await terminalIde.openTerminal();
    await terminalIde.runInTerminal(
      `curl -s http://registry.e2e.test:${port}/ ; curl -s -o /dev/null -w 'code %{http_code}\\n' http://elsewhere.e2e.test:${port}/`,
    );
    await expect(terminalIde.terminalText()).toContainText("hello from the registry");
    await expect(terminalIde.terminalText()).toContainText("code 403");

    const log = page.getByTestId("network-log");
    await expect(log.locator('tr[data-allowed="true"]')).toContainText(`registry.e2e.test:${port}`);
    await expect(log.locator('tr[data-allowed="false"]')).toContainText("elsewhere.e2e.test");
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath("settings-network"), fullPage: true });
  } finally {
    server.close();
  }
});

test("the admin rules out a policy, and a project on it falls back to the most restrictive permitted one", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Network fallback");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;

  await page.goto("/admin");
  const policies = page.getByTestId("network-policies-card");
  await expect(page.getByTestId("network-policy-allow-list")).toHaveAttribute("aria-pressed", "true");
  await page.getByTestId("network-policy-allow-list").click();
  await expect(page.getByTestId("network-policy-allow-list")).toHaveAttribute("aria-pressed", "false");
  await page.getByTestId("network-policy-open").click();
  await expect(page.getByTestId("network-policy-open")).toHaveAttribute("aria-pressed", "false");
  // Off alone is left: it cannot be ruled out too.
  await expect(page.getByTestId("network-policy-off")).toBeDisabled();
  await policies.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("admin-network-policies"), fullPage: true });

  // Still permitted after a reload: the server keeps the choice.
  await page.reload();
  await expect(page.getByTestId("network-policy-allow-list")).toHaveAttribute("aria-pressed", "false");

  await page.goto(`/p/${projectId}/settings`);
  await expect(page.getByTestId("network-policy")).toHaveValue("off");
  await expect(page.getByTestId("network-policy").locator('option[value="allow-list"]')).toBeDisabled();
  await expect(page.getByTestId("network-policy").locator('option[value="allow-list"]')).toHaveText(
    /not permitted by the admin/,
  );

  await page.goto("/admin");
  await page.getByTestId("network-policy-allow-list").click();
  await expect(page.getByTestId("network-policy-allow-list")).toHaveAttribute("aria-pressed", "true");
  await page.getByTestId("network-policy-open").click();
  await expect(page.getByTestId("network-policy-open")).toHaveAttribute("aria-pressed", "true");
  await page.goto(`/p/${projectId}/settings`);
  await expect(page.getByTestId("network-policy")).toHaveValue("allow-list");
});
