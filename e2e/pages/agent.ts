import { expect, type Locator, type Page } from "@playwright/test";
import type { ScriptedReply } from "../fixtures/model-server/server";

/** Where the scripted model server takes its orders (started by scripts/e2e.mjs). */
const controlUrl = `http://127.0.0.1:${process.env.E2E_MODEL_CONTROL_PORT ?? 3102}`;

/** Page object for the agent panel: sessions, the conversation, approvals, questions. */
export class AgentPanel {
  constructor(readonly page: Page) {}

  /** What the model answers next: replies in order, each taken by the first request it matches. */
  async script(replies: ScriptedReply[]) {
    const response = await fetch(`${controlUrl}/scenario`, { method: "POST", body: JSON.stringify({ replies }) });
    expect(response.ok, "the scripted model server took the scenario").toBe(true);
  }

  panel(): Locator {
    return this.page.getByTestId("agent-panel");
  }

  /** Opens an empty new session, from whichever view the panel shows. */
  async newSession() {
    await this.page.getByTestId("agent-tab-chat").click();
    const fresh = this.page.getByTestId("new-session-view");
    const list = this.page.getByTestId("session-list");
    const view = this.page.getByTestId("session-view");
    await expect(fresh.or(list).or(view).first()).toBeVisible();
    if (await view.isVisible()) await this.page.getByTestId("session-back").click();
    if (await list.isVisible()) await this.page.getByTestId("new-session").click();
    await expect(fresh).toBeVisible();
  }

  async send(text: string) {
    await this.page.getByTestId("composer-input").fill(text);
    await this.page.getByTestId("composer-input").press("Enter");
  }

  /** Starts a new session with a first message and waits until it is open. */
  async ask(text: string) {
    await this.newSession();
    await this.send(text);
    await expect(this.page.getByTestId("session-view")).toBeVisible();
    await expect(this.userMessages().last()).toContainText(text);
  }

  userMessages(): Locator {
    return this.page.getByTestId("user-message");
  }

  assistantMessages(): Locator {
    return this.page.getByTestId("assistant-message");
  }

  toolCard(title: string | RegExp): Locator {
    return this.page.getByTestId("tool-card").filter({ has: this.page.getByTestId("tool-title").getByText(title) });
  }

  approvalCard(): Locator {
    return this.page.getByTestId("approval-card");
  }

  async expectStatus(status: "idle" | "running" | "waiting_approval" | "failed" | "interrupted") {
    await expect(this.page.getByTestId("session-view")).toHaveAttribute("data-status", status);
  }
}
