import { admin, expect, screenshotPath, signUpPerson, test, type TestUser } from "./fixtures";
import { SourceControlPage } from "./pages/source-control";
import { startGitHttpServer, type GitHttpServer } from "../server/test/git-http-server";

// Where fetch, pull and push go, in Source Control: the project's stored remote, what happens
// when origin is changed in a terminal, a project without a stored remote as a member and as an
// admin sees it, and a push the host refuses for want of a token.

const TOKEN = "glpat_e2e_remote_token";
const member: TestUser = { name: "Mo Member", email: "mo@example.com", password: "quiet-river-stone-77" };
let server: GitHttpServer;
// The egress proxy maps git.test to the loopback server (playwright.config.ts); unsandboxed, git connects directly.
const remote = () => (process.env.E2E_SANDBOX === "none" ? server.url : server.url.replace("127.0.0.1", "git.test"));

test.beforeAll(async () => {
  server = await startGitHttpServer({ tokens: { [TOKEN]: "ada" } });
  server.createRepository("team/app", { "README.md": "# App\n" });
  // Anyone may clone it; pushing needs a token.
  server.makePublic("team/app");
});
test.afterAll(async () => server.close());

/** The team the projects page lists and creates in (remembered in the browser). */
async function chooseTeam(page: import("@playwright/test").Page, name: string) {
  await page.goto("/");
  await page.getByTestId("team-switcher").selectOption({ label: name });
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(name);
}

async function cloneApp(page: import("@playwright/test").Page, name: string) {
  await page.goto("/");
  await page.getByTestId("new-project-way-git").click();
  await page.getByTestId("clone-url").fill(`${remote()}/team/app.git`);
  await page.getByTestId("clone-name").fill(name);
  await page.getByTestId("clone-submit").click();
  await expect(page).toHaveURL(/\/p\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expect(page.getByTestId("project-title")).toHaveText(name);
}

test("a push the host refuses links to adding a token for that host; with it stored the push goes through", async ({
  page,
  ide,
  context,
  pageErrors,
}) => {
  // The first push is refused (no token), on purpose.
  pageErrors.allow(/status of 422 .*\/api\/trpc\/git\.push/);
  await ide.signIn(admin);
  await cloneApp(page, "Remote push");
  await ide.waitForLive();
  const scm = new SourceControlPage(page);
  await scm.show();
  await expect(page.getByTestId("scm-remote-url")).toHaveAttribute(
    "title",
    `Fetch, pull and push go to ${remote()}/team/app.git`,
  );

  await page.getByTestId("scm-push").click();
  await expect(page.getByTestId("scm-notice")).toContainText("Authentication failed", { timeout: 30_000 });
  const host = new URL(remote()).host;
  const add = page.getByTestId("scm-add-credential");
  await expect(add).toHaveText(`Add a token for ${host}`);
  await page.screenshot({ path: screenshotPath("git-push-refused") });

  const [account] = await Promise.all([context.waitForEvent("page"), add.click()]);
  await expect(account.getByTestId("account-credential-for")).toContainText(host);
  const form = account.getByTestId("git-credentials-user");
  await expect(form.getByLabel("Host")).toHaveValue(host);
  await expect(account.getByTestId("git-credential-token")).toBeFocused();
  await account.getByTestId("git-credential-token").fill(TOKEN);
  await account.screenshot({ path: screenshotPath("account-add-credential") });
  await form.getByRole("button", { name: "Add" }).click();
  await expect(account.getByTestId("git-credential-saved")).toContainText("push again");
  await expect(account.getByTestId(`git-credential-${host}`)).toContainText("token");
  await account.close();

  // The account page is in the user menu too.
  await scm.sync("push");
  await page.getByTestId("user-menu").click();
  await expect(page.getByTestId("menu-account")).toHaveAttribute("href", "/account");
});

test("Source Control says where fetch, pull and push go; when origin is changed in a terminal it says so, and an admin keeps the remote in one click", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await cloneApp(page, "Remote shown");
  await ide.waitForLive();
  const scm = new SourceControlPage(page);
  await scm.show();
  const url = `${remote()}/team/app.git`;
  await expect(page.getByTestId("scm-remote-url")).toHaveAttribute("title", `Fetch, pull and push go to ${url}`);
  await expect(page.getByTestId("scm-remote-differs")).toHaveCount(0);

  // git works in the terminal (as the project's uid): someone points origin elsewhere.
  await ide.openTerminal();
  await ide.runInTerminal(
    "git remote set-url origin https://elsewhere.example/fork.git && git remote -v | head -1 && echo ORIGIN-SET",
  );
  await expect(ide.terminalText()).toContainText("ORIGIN-SET");
  await expect(ide.terminalText()).not.toContainText("dubious ownership");
  await page.getByRole("button", { name: "Refresh Source Control" }).click();
  const differs = page.getByTestId("scm-remote-differs");
  await expect(differs).toContainText("https://elsewhere.example/fork.git");
  await expect(differs).toContainText(`still go to the project's remote, ${url}`);
  await page.screenshot({ path: screenshotPath("git-remote-differs") });
  await page.setViewportSize({ width: 900, height: 700 });
  await page.screenshot({ path: screenshotPath("git-remote-differs-900") });
  await page.setViewportSize({ width: 1280, height: 800 });

  await differs.getByTestId("scm-remote-keep").click();
  await expect(differs).toHaveCount(0);
  await ide.runInTerminal("git remote get-url origin");
  await expect(ide.terminalText()).toContainText(url);
});

test("a member of a project without a stored remote is told to ask an admin; the admin confirms origin in one click", async ({
  page,
  ide,
  browser,
  pageErrors,
}) => {
  test.setTimeout(120_000);
  // Sign-up without an invitation is refused on purpose (the member signs up with one).
  pageErrors.allow(/status of 403 .*\/api\/auth\/sign-up/);
  await ide.signIn(admin);
  // A team with a member in it.
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill("Remote crew");
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText("Remote crew");
  await page.getByTestId("team-settings").click();
  await page.getByTestId("team-invite-role").selectOption("member");
  await page.getByTestId("team-invite-create").click();
  const teamLink = await page.getByTestId("team-invite-link").inputValue();
  const mo = await signUpPerson(browser, page, member);
  await expect(mo.page.getByTestId("projects-empty")).toBeVisible();
  await mo.page.goto(teamLink);
  await mo.page.getByTestId("join-accept").click();
  await expect(mo.page.getByTestId("team-switcher").locator("option:checked")).toHaveText("Remote crew");

  // A repository made in Tandem, its origin added in a terminal: Tandem has stored no remote.
  await chooseTeam(page, "Remote crew");
  await ide.createProject("No remote yet");
  await page.getByTestId("side-tab-scm").click();
  await page.getByTestId("scm-init").click();
  await expect(page.getByTestId("source-control")).toBeVisible();
  await ide.openTerminal();
  const url = `${remote()}/team/app.git`;
  await ide.runInTerminal(`git remote add origin ${url} && echo ORIGIN-ADDED`);
  await expect(ide.terminalText()).toContainText("ORIGIN-ADDED");

  await chooseTeam(mo.page, "Remote crew");
  await mo.openProject("No remote yet");
  await mo.page.getByTestId("side-tab-scm").click();
  const missing = mo.page.getByTestId("scm-remote-missing");
  await expect(missing).toContainText(url);
  await expect(missing).toContainText("Ask a project admin to set it");
  await expect(missing.getByRole("button")).toHaveCount(0);
  await mo.page.screenshot({ path: screenshotPath("git-remote-member-asks") });

  await page.getByRole("button", { name: "Refresh Source Control" }).click();
  const confirm = page.getByTestId("scm-remote-missing");
  await expect(confirm.getByTestId("scm-remote-use-origin")).toBeVisible();
  await page.screenshot({ path: screenshotPath("git-remote-admin-confirms") });
  await confirm.getByTestId("scm-remote-use-origin").click();
  await expect(page.getByTestId("scm-remote-url")).toHaveAttribute("title", `Fetch, pull and push go to ${url}`);

  await mo.page.reload();
  await mo.page.getByTestId("side-tab-scm").click();
  await expect(mo.page.getByTestId("scm-remote-url")).toHaveAttribute("title", `Fetch, pull and push go to ${url}`);
  await expect(mo.page.getByTestId("scm-remote-change")).toHaveCount(0);
});
