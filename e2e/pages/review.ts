import { expect, type Locator, type Page } from "@playwright/test";

/** Page object for reviewing an agent session: the Changes tab, checkpoints, restores; and the project's files through the API. */
export class ReviewPage {
  constructor(readonly page: Page) {}

  projectId(): string {
    const id = /\/p\/([0-9a-f-]{36})/.exec(this.page.url())?.[1];
    if (!id) throw new Error(`not on a project page: ${this.page.url()}`);
    return id;
  }

  /**
   * Calls the tRPC API with the page's login (the context's cookies), as the IDE does. It goes
   * through the context's request API rather than the page's fetch so that polling for a file that
   * is not there yet does not put a 404 in the page's console.
   */
  private async api(kind: "query" | "mutation", path: string, input: unknown): Promise<unknown> {
    const origin = new URL(this.page.url()).origin;
    const body = JSON.stringify({ json: input });
    const response =
      kind === "query"
        ? await this.page.request.get(`${origin}/api/trpc/${path}?input=${encodeURIComponent(body)}`)
        : await this.page.request.post(`${origin}/api/trpc/${path}`, {
            headers: { "content-type": "application/json" },
            data: body,
          });
    const result = (await response.json()) as {
      result?: { data?: { json?: unknown } };
      error?: { json?: { message?: string } };
    };
    if (!response.ok()) throw new Error(`${path}: ${result.error?.json?.message ?? "failed"}`);
    return result.result?.data?.json;
  }

  async writeFile(path: string, content: string) {
    await this.api("mutation", "fs.create", { projectId: this.projectId(), path, content, createParents: true });
  }

  /** Writes over an existing file, as another person or program would (no version check). */
  async replaceFile(path: string, content: string) {
    await this.api("mutation", "fs.write", { projectId: this.projectId(), path, content });
  }

  /** The file's text on disk, or null when it does not exist. */
  async readFile(path: string): Promise<string | null> {
    try {
      const file = (await this.api("query", "fs.read", { projectId: this.projectId(), path })) as { content?: string };
      return file.content ?? null;
    } catch (error) {
      if (/not found|does not exist|no such/i.test(String(error))) return null;
      throw error;
    }
  }

  async expectFile(path: string, content: string | null) {
    await expect.poll(() => this.readFile(path), { message: `contents of ${path} on disk` }).toBe(content);
  }

  changesButton(): Locator {
    return this.page.getByTestId("changes-button");
  }

  view(): Locator {
    return this.page.getByTestId("changes-view");
  }

  file(path: string): Locator {
    return this.view().locator(`[data-testid=changes-file][data-path="${path}"]`);
  }

  changedFile(): Locator {
    return this.view().getByTestId("changed-file");
  }

  hunks(): Locator {
    return this.changedFile().getByTestId("hunk");
  }

  async openChanges() {
    await this.changesButton().click();
    await expect(this.view()).toBeVisible();
    await expect(this.page.getByTestId("tab-changes")).toHaveAttribute("aria-selected", "true");
  }

  async select(path: string) {
    await this.file(path).click();
    await expect(this.changedFile()).toHaveAttribute("data-path", path);
    await expect(this.changedFile().getByTestId("review-diff").locator(".monaco-diff-editor")).toBeVisible();
  }
}
