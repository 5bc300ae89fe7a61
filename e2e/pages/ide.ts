import { existsSync, readFileSync } from "node:fs";
import { expect, type Locator, type Page } from "@playwright/test";

export type TestUser = { name: string; email: string; password: string };

/** Sign-in is rate limited (5 a minute per address), so specs reuse a saved login when they can. */
export const authStateFile = (user: TestUser) => `test-results/.auth/${user.email}.json`;

/** Page object for the Tandem UI: signing in, projects, explorer, editor, terminal. */
export class IdePage {
  constructor(readonly page: Page) {}

  // Accounts

  /** Signs in, reusing the saved login of an earlier spec when it is still valid. */
  async signIn(user: TestUser) {
    const file = authStateFile(user);
    if (existsSync(file)) {
      await this.page.context().addCookies(JSON.parse(readFileSync(file, "utf8")).cookies);
      await this.page.goto("/");
      const outcome = await Promise.race([
        this.page
          .getByTestId("create-project-form")
          .waitFor()
          .then(() => "in" as const),
        this.page
          .getByTestId("sign-in-form")
          .or(this.firstRunHeading())
          .waitFor()
          .then(() => "out" as const),
      ]);
      if (outcome === "in") return;
    }
    await this.signInWithForm(user);
  }

  /**
   * On a fresh Tandem (a spec run alone) the sign-in page offers the first account instead: the
   * user asked for becomes it, as e2e/01-first-run.spec.ts does by hand.
   */
  async signInWithForm(user: TestUser) {
    await this.page.goto("/sign-in");
    const form = this.page.getByTestId("sign-in-form");
    await form.or(this.firstRunHeading()).waitFor();
    if (await this.firstRunHeading().isVisible()) {
      await this.fillSignUp(user);
      await expect(this.page.getByTestId("create-project-form")).toBeVisible();
      await this.saveLogin(user);
      return;
    }
    await form.getByLabel("Email").fill(user.email);
    await form.getByLabel("Password").fill(user.password);
    await form.getByRole("button", { name: "Sign in" }).click();
    await expect(this.page.getByTestId("create-project-form")).toBeVisible();
    await this.saveLogin(user);
  }

  firstRunHeading(): Locator {
    return this.page.getByRole("heading", { name: "Create the first account (you will be the admin)" });
  }

  /** Fills the sign-up form on the current page (first-run sign-in page, /sign-up or an invitation's /join). */
  async fillSignUp(user: TestUser) {
    const form = this.page.getByTestId("sign-up-form");
    await form.getByLabel("Name").fill(user.name);
    await form.getByLabel("Email").fill(user.email);
    await form.getByLabel("Password").fill(user.password);
    await this.page.getByTestId("sign-up-submit").click();
  }

  async saveLogin(user: TestUser) {
    await this.page.context().storageState({ path: authStateFile(user) });
  }

  async signOut() {
    await this.page.getByTestId("user-menu").click();
    await this.page.getByTestId("sign-out").click();
    await expect(this.page).toHaveURL(/\/sign-in/);
  }

  // Projects

  async createProject(name: string) {
    await this.page.goto("/");
    await this.page.getByTestId("new-project-name").fill(name);
    await this.page.getByTestId("create-project").click();
    await expect(this.page).toHaveURL(/\/p\/[0-9a-f-]{36}$/);
    await expect(this.page.getByTestId("project-title")).toHaveText(name);
    await this.waitForLive();
  }

  async openProject(name: string) {
    await this.page.goto("/");
    await this.page.getByTestId(`project-${name}`).getByTestId("project-open").click();
    await expect(this.page.getByTestId("project-title")).toHaveText(name);
    await this.waitForLive();
  }

  /** The IDE follows disk changes only once its subscription is up. */
  async waitForLive() {
    await expect(this.page.getByTestId("connection-state")).toHaveAttribute("data-state", "live");
  }

  // Explorer

  treeItem(path: string): Locator {
    return this.page.getByTestId(`tree-item-${path}`);
  }

  /** The explorer's header buttons show while the pointer is over the explorer, as in VS Code. */
  async clickExplorerAction(testId: string) {
    await this.page.getByTestId("explorer").hover();
    await this.page.getByTestId(testId).click();
  }

  async newFile(name: string) {
    await this.clickExplorerAction("explorer-new-file");
    await this.page.getByTestId("new-entry-input").fill(name);
    await this.page.getByTestId("new-entry-input").press("Enter");
    await expect(this.treeItem(name)).toBeVisible();
    await expect(this.tab(name)).toBeVisible();
  }

  async newFolder(name: string) {
    await this.clickExplorerAction("explorer-new-folder");
    await this.page.getByTestId("new-entry-input").fill(name);
    await this.page.getByTestId("new-entry-input").press("Enter");
    await expect(this.treeItem(name)).toBeVisible();
    await this.waitForTreeSettled();
  }

  /** The new folder opens and loads its (empty) listing; rows move until that is done. */
  async waitForTreeSettled() {
    await expect(this.page.getByTestId("file-tree").getByText("Loading…")).toHaveCount(0);
  }

  async openFile(path: string) {
    await this.treeItem(path).click();
    await expect(this.tab(path)).toHaveAttribute("aria-selected", "true");
    await expect(this.editor()).toBeVisible();
  }

  // Editor

  tab(path: string): Locator {
    return this.page.getByTestId(`tab-${path}`);
  }

  editor(): Locator {
    return this.page.getByTestId("editor").locator(".monaco-editor").first();
  }

  async typeInEditor(text: string) {
    await this.editor().locator(".view-lines").click();
    await this.page.keyboard.type(text);
  }

  /** The text Monaco shows (enough for the short files the tests write). */
  async editorText(): Promise<string> {
    // biome-ignore lint/performance/useDomNodeTextContent: innerText puts a line break between Monaco's line divs
    const text = await this.editor().locator(".view-lines").innerText();
    return text.replace(/\u00a0/g, " ");
  }

  async expectEditorText(expected: string | RegExp) {
    await expect
      .poll(() => this.editorText())
      .toMatch(expected instanceof RegExp ? expected : new RegExp(escapeRegExp(expected)));
  }

  async save() {
    await this.page.keyboard.press("ControlOrMeta+s");
    await expect(this.page.getByTestId("save-state")).toHaveText("Saved");
  }

  // Terminal

  async openTerminal() {
    const before = await this.page.locator("[data-testid^=terminal-tab-]").count();
    await this.page.getByTestId("terminal-new").click();
    await expect(this.page.getByTestId(`terminal-tab-${before}`)).toHaveAttribute("aria-selected", "true");
    await expect(this.page.getByTestId("terminal")).toHaveAttribute("data-status", "connected");
  }

  terminalText(): Locator {
    return this.page.getByTestId("terminal").locator(".xterm-rows");
  }

  async runInTerminal(command: string) {
    await this.page.getByTestId("terminal").locator(".xterm").click();
    await this.page.keyboard.type(command);
    await this.page.keyboard.press("Enter");
  }
}

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
