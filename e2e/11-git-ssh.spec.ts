import { admin, expect, screenshotPath, test } from "./fixtures";
import { generateSshKey, startGitSshServer, type GitSshServer } from "../server/test/git-ssh-server";

// Git over ssh against a real ssh server (ssh2's Server running git upload-pack/receive-pack, with
// public-key authentication, on loopback): a person stores an ssh key, sees its fingerprint, and
// clones from an ssh URL. The key stays on the server; ssh in the sandbox reaches the remote only
// through the egress proxy, which maps git.test to loopback (TANDEM_EGRESS_TEST_HOSTS).

test.describe.configure({ mode: "serial", timeout: 120_000 });

const key = generateSshKey("ed25519");
let server: GitSshServer;
const host = () => (process.env.E2E_SANDBOX === "none" ? "127.0.0.1" : "git.test");

test.beforeAll(async () => {
  server = await startGitSshServer({ authorizedKeys: [key.publicKey] });
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
  expect(server.logins.at(-1)).toEqual({ user: "git", accepted: true });
});
