import { admin, expect, newContext, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// An admin's view of the organisation: a refused sign-in in the audit log, a model's price set on
// the usage page, an agent turn's cost on the admin's and the team's usage pages (chart, CSV), and
// a budget that, once used up, refuses the next turn with a message naming it and who raises it.

test("the audit log, usage and a budget that stops the next turn", async ({ page, ide, browser, pageErrors }) => {
  pageErrors.allow(/status of 401 .*\/api\/auth\/sign-in/);
  // Someone tries the admin's address with a wrong password, from a browser of their own.
  const stranger = await (await newContext(browser)).newPage();
  await stranger.goto("/sign-in");
  const form = stranger.getByTestId("sign-in-form");
  await form.getByLabel("Email").fill(admin.email);
  await form.getByLabel("Password").fill("not-the-password");
  await form.getByRole("button", { name: "Sign in" }).click();
  await expect(stranger.getByTestId("auth-error")).toBeVisible();

  await ide.signIn(admin);
  // A price for the scripted model: 1,000 input tokens cost $1.
  await page.goto("/admin");
  await page.getByTestId("admin-usage-link").click();
  await expect(page.getByRole("heading", { name: "Usage and budgets" })).toBeVisible();
  const prices = page.getByTestId("prices-card");
  await prices.getByLabel("Model").fill("openai-compatible:scripted");
  await prices.getByRole("button", { name: "Add a price" }).click();
  const row = prices.getByTestId("price-openai-compatible:scripted");
  await row.getByLabel("Input price of openai-compatible:scripted", { exact: true }).fill("1000");
  await row.getByLabel("Output price of openai-compatible:scripted", { exact: true }).fill("1000");
  await row.getByRole("button", { name: "Save" }).click();
  await expect(row.getByLabel("Input price of openai-compatible:scripted", { exact: true })).toHaveValue("1000");

  const agent = new AgentPanel(page);
  await agent.script([
    { match: "Count", text: "One, two, three.", usage: { prompt_tokens: 1000, completion_tokens: 200 } },
    { match: "again", text: "This must not be asked." },
  ]);
  await ide.createProject("Budgeted work");
  await agent.ask("Count to three");
  await expect(agent.assistantMessages().first()).toContainText("One, two, three.");

  await page.goto("/admin/usage");
  const report = page.getByTestId("usage-report");
  await expect(report.getByTestId("usage-totals")).toContainText("$1.20");
  await expect(report.getByTestId("usage-table")).toContainText(admin.email);
  await report.getByTestId("usage-by-model").click();
  await expect(report.getByTestId("usage-table")).toContainText("openai-compatible:scripted");
  const csv = page.waitForEvent("download");
  await report.getByTestId("usage-csv").click();
  const csvText = await (await csv).createReadStream().then(async (stream) => {
    let text = "";
    for await (const chunk of stream) text += chunk;
    return text;
  });
  expect(csvText.split("\r\n")[0]).toBe(
    "day,team,project,person,model,steps,inputTokens,outputTokens,cachedInputTokens,costUsd",
  );
  expect(csvText).toContain(`Budgeted work,${admin.email},openai-compatible:scripted,1,1000,200,0,1.2`);

  // A $1 budget on the admin's own team: already past it.
  const budgets = page.getByTestId("budgets-card");
  await budgets.getByTestId("budget-team").selectOption({ label: `${admin.name}'s projects (personal)` });
  await budgets.getByTestId("budget-amount").fill("1");
  await budgets.getByTestId("budget-save").click();
  await expect(budgets.getByTestId("budgets-table")).toContainText("$1.20 of $1.00 (120%)");
  // What the scripted model's requests carry before the conversation, as its step measured it.
  await expect(page.getByTestId("fixed-costs-card").getByTestId("fixed-cost-row")).toContainText(
    "openai-compatible:scripted",
  );
  await page.screenshot({ path: screenshotPath("admin-usage"), fullPage: true });

  // The team's own page shows the same, with its budget.
  await page.goto("/");
  await page.goto(await teamUsageUrl(page));
  await expect(page.getByTestId("team-budget")).toContainText("$1.20 of $1.00");
  await expect(page.getByTestId("usage-chart")).toBeVisible();
  await page.screenshot({ path: screenshotPath("team-usage"), fullPage: true });

  // The next turn is refused, with the budget and who can raise it.
  await ide.openProject("Budgeted work");
  await agent.ask("Count again");
  await expect(page.getByTestId("notice").last()).toContainText("($1.00 a month) is used up");
  await expect(page.getByTestId("notice").last()).toContainText(`ask ${admin.name} (${admin.email})`);
  await page.screenshot({ path: screenshotPath("budget-refused") });

  // The audit log: the refused sign-in, the price and the budget, and their export.
  await page.goto("/admin");
  await page.getByTestId("admin-audit-link").click();
  const log = page.getByTestId("audit-table");
  await expect(log.locator('tr[data-action="sign_in_failed"]').first()).toContainText(admin.email);
  await expect(log.locator('tr[data-action="model.settings_changed"]').first()).toContainText(
    "openai-compatible:scripted",
  );
  await page.screenshot({ path: screenshotPath("audit-log"), fullPage: true });
  await page.getByTestId("audit-action").selectOption("budget.set");
  await page.getByTestId("audit-search").click();
  await expect(log.locator("tbody tr")).toHaveCount(1);
  const exported = page.waitForEvent("download");
  await page.getByTestId("audit-export-csv").click();
  expect((await exported).suggestedFilename()).toMatch(/^tandem-audit-\d{4}-\d{2}-\d{2}\.csv$/);

  // Leave the server as later specs expect it: no budget.
  await page.goto("/admin/usage");
  await page.getByTestId("budgets-table").getByRole("button", { name: "Remove" }).click();
  await expect(page.getByTestId("budgets-card")).toContainText("No budgets");
});

/** The usage page of the admin's own team (the one their first project went into). */
async function teamUsageUrl(page: import("@playwright/test").Page) {
  const response = await page.request.get("/api/trpc/team.list");
  const teams = (await response.json()).result.data.json as Array<{ id: string; personal: boolean }>;
  return `/teams/${teams.find((t) => t.personal)!.id}/usage`;
}
