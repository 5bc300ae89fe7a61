import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";

// The project's setup script in the browser: an admin sets one in the settings, rebuilds the
// environment and watches its output arrive live; it fails, the project's page says so with its
// exit code, and once fixed a retry succeeds and the banner goes.

const FAILING = "echo step one\nsleep 3\necho step two\nexit 4";
const FIXED = "echo step one\nmkdir -p built\necho ready > built/marker\necho all good";

test("a setup script runs with live output, fails with its exit code, and succeeds when fixed and retried", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Set up");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  // No script yet: nothing on the project's page.
  await expect(page.getByTestId("environment-banner")).toHaveCount(0);

  await page.getByTestId("project-settings").click();
  const card = page.getByTestId("environment-card");
  await expect(card).toBeVisible();
  await expect(card.getByTestId("environment-status")).toHaveCount(0);
  await expect(card.getByTestId("environment-rebuild")).toBeDisabled();
  await card.getByTestId("environment-script").fill(FAILING);
  await card.getByTestId("environment-save").click();
  await expect(card.getByTestId("environment-save")).toBeDisabled();

  await card.getByTestId("environment-rebuild").click();
  const status = card.getByTestId("environment-status");
  const output = card.getByTestId("environment-output");
  // Live: the first line is there while the script still sleeps.
  await expect(status).toHaveAttribute("data-status", "running");
  await expect(output).toContainText("step one");
  await expect(output).not.toContainText("step two");
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("setup-running") });

  await expect(status).toHaveAttribute("data-status", "failed", { timeout: 20_000 });
  await expect(status).toContainText("Setup failed with exit code 4");
  await expect(output).toContainText("step two");
  await expect(card.getByTestId("environment-rebuild")).toHaveText("Retry setup");
  await page.screenshot({ path: screenshotPath("setup-failed") });

  // The project's page tells everyone who opens it.
  await page.getByTestId("back-to-project").click();
  const banner = page.getByTestId("environment-banner");
  await expect(banner).toHaveAttribute("data-status", "failed");
  await expect(banner).toContainText("failed with exit code 4");
  await page.screenshot({ path: screenshotPath("setup-failed-banner") });

  // Fixed in the settings, retried from there.
  await banner.getByTestId("environment-details").click();
  await expect(page).toHaveURL(new RegExp(`/p/${projectId}/settings#environment$`));
  await card.getByTestId("environment-script").fill(FIXED);
  // A run uses the saved script: Retry waits for the change to be saved, and a click on it meanwhile does nothing.
  await expect(card.getByTestId("environment-rebuild")).toBeDisabled();
  await card.getByTestId("environment-save").click();
  await expect(card.getByTestId("environment-save")).toBeDisabled();
  await card.getByTestId("environment-rebuild").click();
  await expect(status).toHaveAttribute("data-status", "succeeded", { timeout: 20_000 });
  await expect(status).toContainText("Setup succeeded");
  await expect(output).toContainText("all good");
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("setup-succeeded") });
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  expect(await fs.readFile(path.join(workspace, "built", "marker"), "utf8")).toBe("ready\n");

  await page.getByTestId("back-to-project").click();
  await expect(page.getByTestId("project-title")).toHaveText("Set up");
  await expect(page.getByTestId("environment-banner")).toHaveCount(0);
});

test("Retry on the project's page runs the setup again", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Retry here");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  // A repository's own script: it fails until a file it needs is there.
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  await fs.mkdir(path.join(workspace, ".tandem"), { recursive: true });
  await fs.writeFile(path.join(workspace, ".tandem", "setup.sh"), "test -f requirements.txt\necho installed\n");
  await page.getByTestId("project-settings").click();
  const card = page.getByTestId("environment-card");
  await expect(card).toContainText("which this project has");
  await card.getByTestId("environment-rebuild").click();
  await expect(card.getByTestId("environment-status")).toHaveAttribute("data-status", "failed", { timeout: 20_000 });
  await expect(card.getByTestId("environment-status")).toContainText("(.tandem/setup.sh,");
  await page.getByTestId("back-to-project").click();
  const banner = page.getByTestId("environment-banner");
  await expect(banner).toContainText(".tandem/setup.sh");
  await expect(banner).toContainText("failed with exit code 1");
  await fs.writeFile(path.join(workspace, "requirements.txt"), "");
  await banner.getByTestId("environment-retry").click();
  await expect(banner).toHaveCount(0, { timeout: 20_000 });
});
