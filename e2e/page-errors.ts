import type { BrowserContext, ConsoleMessage } from "@playwright/test";

/**
 * Every uncaught page error and every console error of the browser contexts a test opens. A test
 * fails on any it did not declare with `pageErrors.allow(/pattern/)` (e2e/fixtures.ts checks at
 * its end), so a regression that only shows in the browser's console does not pass unseen.
 */
export class PageErrors {
  private readonly seen: string[] = [];
  private readonly allowed: RegExp[] = [];

  watch(context: BrowserContext): BrowserContext {
    context.on("weberror", (error) =>
      this.seen.push(`uncaught page error: ${error.error().stack ?? error.error().message}`),
    );
    context.on("console", (message: ConsoleMessage) => {
      if (message.type() !== "error") return;
      const { url, lineNumber } = message.location();
      this.seen.push(`console error: ${message.text()}${url ? ` (${url}:${lineNumber})` : ""}`);
    });
    return context;
  }

  /** Declares an error this test provokes on purpose (a refused request, a failed connection). */
  allow(pattern: RegExp): void {
    this.allowed.push(pattern);
  }

  unexpected(): string[] {
    return this.seen.filter((line) => !this.allowed.some((pattern) => pattern.test(line)));
  }
}
