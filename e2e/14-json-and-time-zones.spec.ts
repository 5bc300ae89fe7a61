import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// A structured tool result (a sub-agent's JSON report) shows in its tool card as JSON, not as an
// escaped string; a schedule the agent creates is read in the browser's time zone and shown in it.

test.use({ timezoneId: "America/New_York" });

test("a sub-agent's JSON report shows as JSON in the delegate card", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  const report = { files: ["src/a.ts", "src/b.ts"], note: 'uses "strict" mode' };
  await agent.script([
    {
      match: "survey the files",
      toolCalls: [{ id: "call_survey", name: "delegate", arguments: { task: "Task survey: list the files as JSON" } }],
    },
    { match: "Task survey", text: `\`\`\`json\n${JSON.stringify(report, null, 2)}\n\`\`\`` },
    { match: "src/b.ts", text: "Two files." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Structured results");
  await agent.ask("survey the files");
  await expect(agent.assistantMessages().last()).toContainText("Two files.");

  const card = agent.toolCard(/Delegate/);
  await card.getByRole("button").first().click();
  const json = card.getByTestId("tool-json");
  await expect(json).toBeVisible();
  await expect(json).toContainText('"files": [');
  await expect(json).toContainText('"note": "uses \\"strict\\" mode"');
  await expect(json).toContainText('"status": "completed"');
  await card.screenshot({ path: screenshotPath("tool-card-json") });
});

test("a schedule is read in the browser's time zone and shown on its clock", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([
    {
      match: "standup notes",
      toolCalls: [
        {
          id: "call_schedule",
          name: "schedule_task",
          arguments: {
            taskPayload: "Write the standup notes",
            timeExpression: "every weekday at 9",
            humanReadableDescription: "Standup notes",
          },
        },
      ],
    },
    { match: "Scheduled task", text: "Scheduled it." },
  ]);
  await ide.signIn(admin);
  await ide.createProject("Time zones");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  await agent.ask("write the standup notes every weekday at 9");
  await agent.approvalCard().getByTestId("approve").click();
  await expect(agent.assistantMessages().last()).toContainText("Scheduled it.");

  await page.goto(`/p/${projectId}/settings`);
  const row = page.getByTestId("schedule-row").filter({ hasText: "Standup notes" });
  await expect(row).toContainText("(cron 0 9 * * 1-5, America/New_York)");
  await expect(row).toContainText(/next: \w{3} \d+, \d{4}, 9:00\s?AM E[SD]T/);
  await page.getByTestId("schedules-card").screenshot({ path: screenshotPath("schedules-time-zone") });
  // Its creator pauses it and may resume it (no one else may: the runs act as the creator).
  await row.getByRole("button", { name: "Pause" }).click();
  await expect(row).toHaveAttribute("data-status", "paused");
  await expect(row.getByTestId("schedule-resume")).toBeVisible();
  await expect(row.getByTestId("schedule-resume-by-creator")).toHaveCount(0);
  await page.getByTestId("schedules-card").screenshot({ path: screenshotPath("schedules-paused") });
  await row.getByTestId("schedule-resume").click();
  await expect(row).toHaveAttribute("data-status", "active");
  // This server has no embedding model: the knowledge card says so and how to set one.
  await expect(page.getByTestId("knowledge-card")).toContainText("Full-text ranking. Set TANDEM_EMBEDDING_MODEL");
  await page.getByTestId("knowledge-card").screenshot({ path: screenshotPath("knowledge-card") });
});
