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
    // The row's actions show while the pointer is over it, as a person's would be; a notice that
    // appears above the list meanwhile (no remote yet) moves the row from under the pointer, so the
    // pointer goes to the row again until the action shows.
    await expect(async () => {
      await row.hover();
      await expect(button).toBeVisible({ timeout: 1_000 });
    }).toPass();
    await button.click();
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
