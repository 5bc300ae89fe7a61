import { expect, type Locator, type Page } from "@playwright/test";

/** The Source Control view (components/git). */
export class SourceControlPage {
  constructor(private page: Page) {}

  async show() {
    await this.page.getByTestId("side-tab-scm").click();
    await expect(this.page.getByTestId("source-control")).toBeVisible();
  }

  async showExplorer() {
    await this.page.getByTestId("side-tab-explorer").click();
    await expect(this.page.getByTestId("file-tree")).toBeVisible();
  }

  row(section: "merge" | "staged" | "changes", path: string): Locator {
    return this.page.getByTestId(`scm-${section}-${path}`);
  }

  async stage(path: string, section: "changes" | "merge" = "changes") {
    const row = this.row(section, path);
    const button = row.getByTestId(`scm-stage-${path}`);
    // The row's actions show while the pointer is over it, as a person's would be. The list can move
    // under the pointer (a notice appears above it, the status refreshes), and a click waits for the
    // action to be visible before it moves the pointer, so hover and click are retried together.
    await expect(async () => {
      await row.hover();
      await button.click({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(this.row("staged", path)).toBeVisible();
  }

  async commit(message: string) {
    await this.page.getByTestId("scm-message").fill(message);
    await this.page.getByTestId("scm-message").press("ControlOrMeta+Enter");
    await expect(this.page.getByTestId("scm-message")).toHaveValue("");
  }

  async sync(action: "fetch" | "pull" | "push") {
    await this.page.getByTestId(`scm-${action}`).click();
    await expect(this.page.getByTestId("scm-notice")).toContainText(
      action === "push" ? "Pushed." : action === "pull" ? "Pulled." : "Fetched.",
      { timeout: 30_000 },
    );
  }
}
