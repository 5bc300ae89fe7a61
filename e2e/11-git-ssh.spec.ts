import { admin, expect, screenshotPath, test } from "./fixtures";
import { generateSshKey, startGitSshServer, type GitSshServer } from "../server/test/git-ssh-server";

// Git over ssh against a real ssh server (ssh2's Server running git upload-pack/receive-pack, with
// public-key authentication, on loopback): a person stores an ssh key, sees its fingerprint, and
// clones from an ssh URL. The key stays on the server; ssh in the sandbox reaches the remote only
// through the egress proxy, which maps git.test to loopback (TANDEM_EGRESS_TEST_HOSTS).

test.describe.configure({ mode: "serial", timeout: 120_000 });

const key = generateSshKey("ed25519");
const teamKey = generateSshKey("ed25519");
let server: GitSshServer;
const host = () => (process.env.E2E_SANDBOX === "none" ? "127.0.0.1" : "git.test");

test.beforeAll(async () => {
  server = await startGitSshServer({ authorizedKeys: [key.publicKey, teamKey.publicKey] });
  server.createRepository("garden", { "README.md": "# Garden\n\nGrows things.\n" });
});
test.afterAll(async () => server.close());

test("store an ssh key, see its fingerprint, and clone a project over ssh", async ({ page, ide }) => {
  await ide.signIn(admin);
  await page.goto("/");
  await page.getByTestId("new-project-way-git").click();
  const credentials = page.getByTestId("git-credentials-user");
  await credentials.getByTestId("git-credential-kind-select").selectOption("ssh-key");
  await credentials.getByLabel("Credential name").fill("Garden key");
  await credentials.getByLabel("Host").fill(`${host()}:${server.port}`);
  await credentials.getByLabel("Private key").fill(key.privateKey);
  await credentials.getByRole("button", { name: "Add" }).click();
  await expect(credentials.getByTestId("git-credential-saved")).toContainText("SHA256:");
  const row = credentials.getByTestId("git-credential-Garden key");
  await expect(row).toContainText("ssh key");
  expect(await page.content()).not.toContain(key.privateKey.split("\n")[2]!);
  await expect(credentials.getByLabel("Private key")).toHaveValue("");
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await credentials.screenshot({ path: screenshotPath(`git-ssh-key-${theme}`) });
  }

  await page.getByTestId("clone-url").fill(`ssh://git@${host()}:${server.port}/garden.git`);
  await expect(page.getByTestId("clone-credential")).toContainText("Garden key");
  await expect(page.getByTestId("clone-token")).toHaveCount(0);
  await page.getByTestId("clone-name").fill("Garden");
  await page.getByTestId("clone-submit").click();
  await expect(page).toHaveURL(/\/p\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expect(page.getByTestId("project-title")).toHaveText("Garden");
  await ide.waitForLive();
  await expect(page.getByTestId("statusbar-branch")).toContainText("main");
  expect(server.logins.at(-1)).toMatchObject({ user: "git", accepted: true, key: key.publicKey });
});

test("a team's shared ssh key is offered when cloning in the team, and the project's trusted host key can be forgotten", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await page.goto("/");
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill("Ssh crew");
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText("Ssh crew");
  await page.getByTestId("team-settings").click();
  const shared = page.getByTestId("git-credentials-team");
  await shared.getByTestId("git-credential-kind-select").selectOption("ssh-key");
  await shared.getByLabel("Credential name").fill("Crew deploy key");
  await shared.getByLabel("Host").fill(`${host()}:${server.port}`);
  await shared.getByLabel("Private key").fill(teamKey.privateKey);
  await shared.getByRole("button", { name: "Add" }).click();
  await expect(shared.getByTestId("git-credential-Crew deploy key")).toContainText("ssh key");

  // In the team, the clone form offers the person's own key and the team's, each under its heading.
  await page.goto("/");
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText("Ssh crew");
  await page.getByTestId("new-project-way-git").click();
  await page.getByTestId("clone-url").fill(`ssh://git@${host()}:${server.port}/garden.git`);
  const choice = page.getByTestId("clone-credential");
  await expect(choice.locator('optgroup[label="Yours"] option')).toHaveText(["Garden key (git)"]);
  await expect(choice.locator(`optgroup[label="The team's shared credentials"] option`)).toHaveText([
    "Crew deploy key (git) · team",
  ]);
  await choice.selectOption({ label: "Crew deploy key (git) · team" });
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await page.getByTestId("clone-form").screenshot({ path: screenshotPath(`git-clone-team-credential-${theme}`) });
  }
  const logins = server.logins.length;
  await page.getByTestId("clone-name").fill("Crew garden");
  await page.getByTestId("clone-submit").click();
  await expect(page).toHaveURL(/\/p\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expect(page.getByTestId("project-title")).toHaveText("Crew garden");
  // The clone asks the remote for its branches, then fetches (two connections): each with the team's key.
  const cloneLogins = server.logins.slice(logins);
  expect(cloneLogins.length).toBeGreaterThan(0);
  expect(cloneLogins).toEqual(cloneLogins.map(() => ({ user: "git", accepted: true, key: teamKey.publicKey })));

  // The project's settings list the host key the clone trusted; forgetting it asks first.
  await page.goto(`${page.url()}/settings`);
  const trusted = page.getByTestId("known-hosts-table");
  await expect(trusted.locator("tbody tr")).toHaveCount(1);
  const row = trusted.locator("tbody tr").first();
  await expect(row).toContainText(host());
  await expect(row).toContainText(server.hostKey.keyType);
  await expect(row).toContainText("SHA256:");
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.setAttribute("data-theme", t), theme);
    await page.getByTestId("git-settings").screenshot({ path: screenshotPath(`git-known-hosts-${theme}`) });
  }
  await row.getByTestId("known-host-forget").click();
  const confirm = page.getByTestId("confirm-dialog");
  await expect(confirm).toContainText("Forget the host keys of");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(trusted.locator("tbody tr")).toHaveCount(1);
  await row.getByTestId("known-host-forget").click();
  await page.screenshot({ path: screenshotPath("git-known-hosts-forget") });
  await confirm.getByTestId("confirm-button").click();
  await expect(page.getByTestId("known-hosts")).toContainText("None yet");
  await expect(trusted).toHaveCount(0);
});
