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
