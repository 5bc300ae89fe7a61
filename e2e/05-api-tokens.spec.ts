import { admin, expect, screenshotPath, test } from "./fixtures";

// A person makes an API token on their account page, a script uses it, and revoking it stops the
// script at its next call.
test("an API token made on the account page works for a script until it is revoked", async ({ page, ide, baseURL }) => {
  await ide.signIn(admin);
  const projectName = "Scripted from CI";
  await ide.createProject(projectName);
  await page.goto("/account");
  await page.getByTestId("api-token-name").fill("ci");
  await page.getByTestId("api-token-scope-run").check();
  await page.getByTestId("create-api-token").click();
  const token = await page.getByTestId("api-token-made").inputValue();
  expect(token).toMatch(/^tandem_/);
  await expect(page.getByTestId("api-token-table")).toContainText("read, run");

  // The script: tRPC over plain HTTP (superjson's `{ json }` envelope), no cookie.
  const listProjects = () =>
    fetch(`${baseURL}/api/trpc/project.list`, { headers: { authorization: `Bearer ${token}` } });
  const listed = await listProjects();
  expect(listed.status).toBe(200);
  expect(JSON.stringify(await listed.json())).toContain(projectName);

  await page.reload();
  await expect(page.getByTestId("api-token-table")).not.toContainText("never");
  await page.screenshot({ path: screenshotPath("api-tokens") });
  await page.getByTestId("revoke-api-token-ci").click();
  await expect(page.getByTestId("api-token-table")).toContainText("revoked");
  expect((await listProjects()).status).toBe(401);
});

test("a team token made on the team page reaches the team's projects only, until it is revoked", async ({
  page,
  ide,
  baseURL,
}) => {
  await ide.signIn(admin);
  const team = `Release crew ${Date.now()}`;
  await page.goto("/");
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill(team);
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(team);
  await ide.createProject("Release notes");
  await page.goto("/");
  await page.getByTestId("team-settings").click();
  const card = page.getByTestId("team-tokens");
  await card.getByTestId("api-token-name").fill("release-bot");
  await card.getByTestId("api-token-scope-run").check();
  await card.getByTestId("create-api-token").click();
  const token = await card.getByTestId("api-token-made").inputValue();
  expect(token).toMatch(/^tandem_/);
  // The token's own account is not one of the team's people.
  await expect(page.getByTestId("team-members")).not.toContainText("release-bot");

  const listProjects = () =>
    fetch(`${baseURL}/api/trpc/project.list`, { headers: { authorization: `Bearer ${token}` } });
  const listed = await listProjects();
  expect(listed.status).toBe(200);
  const names = JSON.stringify(await listed.json());
  expect(names).toContain("Release notes");
  // The admin's own projects in other teams are not the team token's.
  expect(names).not.toContain("Scripted from CI");

  await page.reload();
  await expect(card.getByTestId("api-token-table")).toContainText("read, run");
  await card.screenshot({ path: screenshotPath("team-tokens") });
  await card.getByTestId("revoke-api-token-release-bot").click();
  await expect(card.getByTestId("api-token-table")).toContainText("revoked");
  expect((await listProjects()).status).toBe(401);
});

test("a project's admin makes its webhook and sees the secret once", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.createProject("Hooked");
  await page.getByTestId("project-settings").click();
  const card = page.getByTestId("webhook-card");
  await card.getByTestId("webhook-enable").click();
  await expect(card.getByTestId("webhook-secret")).toHaveValue(/^whsec_/);
  await expect(card.getByTestId("webhook-url")).toContainText("/api/hooks/projects/");
  await card.screenshot({ path: screenshotPath("webhook") });
  await page.reload();
  await expect(page.getByTestId("webhook-card").getByTestId("webhook-secret")).toHaveCount(0);
  await expect(page.getByTestId("webhook-card").getByTestId("webhook-rotate")).toBeVisible();

  // The same URL takes the forge's `@tandem` comments once the project's remote is on one.
  await expect(page.getByTestId("webhook-forge")).toContainText("GitHub, GitLab or Gitea/Forgejo");
  const projectId = /projects\/([0-9a-f-]{36})/.exec((await page.getByTestId("webhook-url").textContent()) ?? "")![1];
  const setRemote = await page.evaluate(async (id) => {
    const response = await fetch("/api/trpc/git.setRemote", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: { projectId: id, url: "https://github.com/acme/shop.git" } }),
    });
    return response.status;
  }, projectId);
  expect(setRemote).toBe(200);
  await page.reload();
  const forge = page.getByTestId("webhook-card").getByTestId("webhook-forge");
  await expect(forge).toContainText("GitHub (acme/shop on github.com)");
  await expect(forge.getByTestId("webhook-forge-token")).toContainText("The team has no token for github.com");
  await page.getByTestId("webhook-card").screenshot({ path: screenshotPath("webhook-forge") });

  // GitLab sends its token in every delivery: it gets one of its own with a new secret, not the secret.
  const toGitlab = await page.evaluate(async (id) => {
    const response = await fetch("/api/trpc/git.setRemote", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: { projectId: id, url: "https://gitlab.com/acme/shop.git" } }),
    });
    return response.status;
  }, projectId);
  expect(toGitlab).toBe(200);
  await page.reload();
  const gitlabCard = page.getByTestId("webhook-card");
  await expect(gitlabCard.getByTestId("webhook-forge")).toContainText("the GitLab token shown with a new secret");
  await gitlabCard.getByTestId("webhook-rotate").click();
  await expect(gitlabCard.getByTestId("webhook-gitlab-token")).toHaveValue(/^glwh_/);
  const shown = await gitlabCard.getByTestId("webhook-secret").inputValue();
  expect(await gitlabCard.getByTestId("webhook-gitlab-token").inputValue()).not.toBe(shown);
  await gitlabCard.screenshot({ path: screenshotPath("webhook-gitlab") });
});
