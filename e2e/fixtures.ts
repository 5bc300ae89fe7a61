import { test as base, expect } from "@playwright/test";
import { IdePage, type TestUser } from "./pages/ide";

export { authStateFile, type TestUser } from "./pages/ide";

/** The first account, created through the UI by 01-first-run.spec.ts; later specs sign in as it. */
export const admin: TestUser = { name: "Ada Admin", email: "ada@example.com", password: "correct-horse-battery" };

/** A second person, who joins through an invitation link. */
export const invitee: TestUser = { name: "Ian Invitee", email: "ian@example.com", password: "staple-lamp-orbit-42" };

export const screenshotPath = (name: string) => `test-results/screens/${name}.png`;

export const test = base.extend<{ ide: IdePage }>({
  ide: async ({ page }, use) => {
    await use(new IdePage(page));
  },
});

export { expect };
