import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";

// The project's hooks and language servers in the settings: a hooks file the repository planted
// is shown and does not run until a project admin approves it; a language server is added by
// command and file globs, and a bad entry is refused with its reason.

const HOOKS = {
  hooks: {
    PreToolUse: [
      { matcher: "write_file|edit", paths: ["src/**"], hooks: [{ type: "command", command: "./check.sh" }] },
    ],
  },
};

test("a planted hooks file waits for an admin's approval; language servers are added by configuration", async ({
  page,
  ide,
}) => {
  await ide.signIn(admin);
  await ide.createProject("Hooked");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  await fs.mkdir(path.join(workspace, ".tandem"), { recursive: true });
  await fs.writeFile(path.join(workspace, ".tandem/hooks.json"), JSON.stringify(HOOKS, null, 2));

  await page.getByTestId("project-settings").click();
  const card = page.getByTestId("hooks-card");
  await expect(card.getByTestId("hooks-state")).toContainText("Not approved");
  await expect(card.getByTestId("hooks-text")).toContainText("./check.sh");
  // The page's table of contents leads to the card and marks it as the one being read.
  const hooksLink = page.getByTestId("settings-nav").getByRole("link", { name: "Hooks" });
  await hooksLink.click();
  await expect(page).toHaveURL(/#hooks$/);
  await expect(card).toBeInViewport();
  await expect(hooksLink).toHaveAttribute("aria-current", "location");
  // The last card cannot scroll up to the top, and stays marked once its link is clicked.
  const lastLink = page.getByTestId("settings-nav").getByRole("link", { name: "Inbound webhook" });
  await lastLink.click();
  await expect(lastLink).toHaveAttribute("aria-current", "location");
  await hooksLink.click();
  await page.screenshot({ path: screenshotPath("hooks-unapproved") });
  await card.getByTestId("approve-hooks").click();
  await expect(card.getByTestId("hooks-state")).toContainText("Approved: these hooks run.");

  // The repository changes the file: it stops running until approved again.
  await fs.writeFile(path.join(workspace, ".tandem/hooks.json"), JSON.stringify({ hooks: {} }));
  await page.reload();
  await expect(card.getByTestId("hooks-state")).toContainText("changed since it was approved");
  await expect(card.getByTestId("revoke-hooks")).toBeVisible();

  const languages = page.getByTestId("language-servers-card");
  await languages.getByTestId("language-servers-text").fill('{ "go": { "command": ["gopls"] } }');
  await languages.getByTestId("save-language-servers").click();
  await expect(languages.getByRole("alert")).toContainText("go.files");
  await languages.getByTestId("language-servers-text").fill('{ "go": { "command": ["gopls"], "files": ["*.go"] } }');
  await languages.getByTestId("save-language-servers").click();
  await expect(languages.getByRole("alert")).toHaveCount(0);
  await expect(languages.getByTestId("save-language-servers")).toBeDisabled();
  await languages.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath("language-servers") });
});
