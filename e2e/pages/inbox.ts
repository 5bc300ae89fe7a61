import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for the header's bell and inbox, and the notification settings on the account page. */
export class InboxPage {
  constructor(readonly page: Page) {}

  bell(): Locator {
    return this.page.getByTestId("inbox-bell");
  }

  count(): Locator {
    return this.page.getByTestId("inbox-count");
  }

  items(): Locator {
    return this.page.getByTestId("inbox-item");
  }

  async open() {
    if (!(await this.page.getByTestId("inbox-panel").isVisible())) await this.bell().click();
    await expect(this.page.getByTestId("inbox-panel")).toBeVisible();
  }

  settings(): Locator {
    return this.page.getByTestId("notification-settings");
  }
}
