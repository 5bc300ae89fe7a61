import { test as base, expect, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { PageErrors } from "./page-errors";
import { IdePage, type TestUser } from "./pages/ide";

export { authStateFile, type TestUser } from "./pages/ide";

/** The first account, created through the UI by 01-first-run.spec.ts; later specs sign in as it. */
export const admin: TestUser = { name: "Ada Admin", email: "ada@example.com", password: "correct-horse-battery" };

/** A second person, who joins through an invitation link. */
export const invitee: TestUser = { name: "Ian Invitee", email: "ian@example.com", password: "staple-lamp-orbit-42" };

/**
 * Signs a new person up in a browser of their own, through a sign-up link the signed-in admin on
 * `adminPage` makes (sign-up becomes by invitation, as a spec that needs a second account expects).
 */
export async function signUpPerson(browser: Browser, adminPage: Page, user: TestUser): Promise<IdePage> {
  await adminPage.goto("/admin");
  await adminPage.getByTestId("signup-mode-invite").click();
  await expect(adminPage.getByTestId("signup-mode-invite")).toHaveAttribute("aria-pressed", "true");
  await adminPage.getByTestId("create-invite").click();
  const link = await adminPage.getByTestId("invite-link").inputValue();
  const person = new IdePage(await (await newContext(browser)).newPage());
  await person.page.goto(link);
  await person.fillSignUp(user);
  await expect(person.page.getByTestId("create-project-form")).toBeVisible();
  return person;
}

/**
 * `E2E_THEME=light node scripts/e2e.mjs` runs the specs with the light theme chosen in every
 * context they open, writing `<name>-light.png` screenshots beside the dark ones, to look at.
 */
const theme = process.env.E2E_THEME === "light" ? "light" : "dark";

export const screenshotPath = (name: string) => `test-results/screens/${name}${theme === "light" ? "-light" : ""}.png`;

async function withTheme(context: BrowserContext) {
  if (theme === "light") {
    await context.addInitScript(() => {
      // about:blank and data: documents have no localStorage (reading it throws there).
      try {
        if (localStorage.getItem("tandem.theme") === null) localStorage.setItem("tandem.theme", "light");
      } catch {}
    });
  }
  return context;
}

// The running test's error watch: specs run one at a time in one worker (playwright.config.ts).
let watching: PageErrors | undefined;

/** A second person's browser (a teammate, a guest), in the run's theme, watched for errors too. */
export const newContext = async (browser: Browser) => {
  const context = await withTheme(await browser.newContext());
  return watching ? watching.watch(context) : context;
};

export const test = base.extend<{ ide: IdePage; pageErrors: PageErrors }>({
  // Every test fails on an uncaught page error or a console error it did not declare.
  pageErrors: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const errors = new PageErrors();
      watching = errors;
      await use(errors);
      watching = undefined;
      const unexpected = errors.unexpected();
      expect(
        unexpected,
        "uncaught page errors and console errors (declare expected ones with pageErrors.allow)",
      ).toEqual([]);
    },
    { auto: true },
  ],
  context: async ({ context, pageErrors }, use) => {
    await use(pageErrors.watch(await withTheme(context)));
  },
  ide: async ({ page }, use) => {
    await use(new IdePage(page));
  },
});

export { expect };
