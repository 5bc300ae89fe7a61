import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for the agent panel's Board tab (the project's sessions, live) and review comments. */
export class BoardPage {
  constructor(readonly page: Page) {}

  async open() {
    await this.page.getByTestId("agent-tab-board").click();
    await expect(this.page.getByTestId("session-board")).toBeVisible();
  }

  rows(): Locator {
    return this.page.getByTestId("board-row");
  }

  row(title: string | RegExp): Locator {
    return this.rows().filter({ hasText: title });
  }

  async expectState(title: string | RegExp, state: string) {
    await expect(this.row(title)).toHaveAttribute("data-state", state);
  }

  comments(): Locator {
    return this.page.getByTestId("review-comment");
  }

  /** Comments on the change shown first in the open review. */
  async commentOnFirstChange(text: string) {
    await this.page.getByTestId("hunk-comment").first().click();
    await this.page.getByTestId("comment-input").fill(text);
    await this.page.getByTestId("comment-submit").click();
    await expect(this.page.getByTestId("comment-composer")).toHaveCount(0);
  }
}
