import http from "node:http";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { SourceControlPage } from "./pages/source-control";
import { startGitHttpServer, type GitHttpServer } from "../server/test/git-http-server";

// Git against a real smart-HTTP server (git http-backend behind basic auth, on loopback): clone
// with a token, change a file, stage one hunk, commit as the signed-in person, push; the agent's
// change carries its Co-authored-by trailer; a commit made elsewhere is pulled into an open
// editor; a merge conflict is resolved in the editor.

const TOKEN = "ghp_e2e_token_for_ada";
// The tests are steps of one story (one clone, one remote), so they run in order and a failure
// skips the rest; the spec needs no other spec.
test.describe.configure({ mode: "serial", timeout: 120_000 });

let server: GitHttpServer;
// What Tandem clones from: the server reaches it through its egress proxy, which maps this test
// name (TANDEM_EGRESS_TEST_HOSTS in playwright.config.ts) to the loopback git server; a bare
// 127.0.0.1 would be refused like any loopback address.
// Unsandboxed (no bubblewrap: scripts/e2e.mjs), git connects directly, so the loopback URL it is.
const remote = () => (process.env.E2E_SANDBOX === "none" ? server.url : server.url.replace("127.0.0.1", "git.test"));
const lines = `${Array.from({ length: 30 }, (_, i) => `export const line${i} = ${i};`).join("\n")}\n`;

test.beforeAll(async () => {
  server = await startGitHttpServer({ tokens: { [TOKEN]: "ada" } });
  server.createRepository("shop", { "README.md": "# Shop\n\nSells things.\n", "src/app.ts": lines });
});
test.afterAll(async () => server.close());

async function cloneShop(page: import("@playwright/test").Page, name: string, token?: string) {
  await page.goto("/");
  await page.getByTestId("new-project-way-git").click();
  await page.getByTestId("clone-url").fill(`${remote()}/shop.git`);
  await page.getByTestId("clone-name").fill(name);
  if (token) await page.getByTestId("clone-token").fill(token);
  await page.getByTestId("clone-submit").click();
  await expect(page).toHaveURL(/\/p\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  await expect(page.getByTestId("project-title")).toHaveText(name);
}

test("clone with a token, stage one hunk, commit as yourself, push, and see the pull request link", async ({
  page,
  ide,
  pageErrors,
}) => {
  // The clone of a missing repository is refused (404), on purpose.
  pageErrors.allow(/status of 404 .*\/api\/trpc\/project\.create/);
  await ide.signIn(admin);
  // A wrong URL says why, and makes no project.
  await page.goto("/");
  await page.getByTestId("new-project-way-git").click();
  await page.getByTestId("create-project-form").screenshot({ path: screenshotPath("new-project-git") });
  await page.getByTestId("clone-url").fill(`${remote()}/missing.git`);
  await page.getByTestId("clone-token").fill(TOKEN);
  await page.getByTestId("clone-submit").click();
  await expect(page.getByTestId("clone-error")).toContainText("Repository not found");
  await page.screenshot({ path: screenshotPath("git-clone-error") });
  await page.reload();
  await expect(page.getByTestId("project-list").or(page.getByTestId("projects-empty"))).toBeVisible();
  await expect(page.getByTestId("project-missing")).toHaveCount(0);

  await cloneShop(page, "Shop");
  await ide.waitForLive();
  await expect(page.getByTestId("statusbar-branch")).toContainText("main");
  await expect(page.getByTestId("statusbar-sync")).toContainText("↓0 ↑0");

  await ide.treeItem("src").click();
  await ide.openFile("src/app.ts");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+Home");
  await page.keyboard.type("// first change\n");
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("// second change\n");
  await ide.save();
  await expect(ide.treeItem("src").getByTestId("git-decoration")).toHaveCount(0);
  await expect(ide.treeItem("src")).toHaveClass(/git-modified/);

  const scm = new SourceControlPage(page);
  await scm.show();
  await expect(scm.row("changes", "src/app.ts").getByTestId("scm-letter")).toHaveText("M");
  // At the side bar's default width its three tabs fit: no label is cut, and the Git badge is whole.
  await expect(page.getByTestId("side-tab-scm").locator(".scm-count")).toHaveText("1");
  const tabs = await page.locator(".side-tabs").evaluate((strip) => ({
    overflow: strip.scrollWidth - strip.clientWidth,
    cut: [...strip.querySelectorAll<HTMLElement>(".side-tab-label")]
      .filter((label) => label.scrollWidth > label.clientWidth)
      .map((label) => label.textContent),
  }));
  expect(tabs).toEqual({ overflow: 0, cut: [] });
  await scm.row("changes", "src/app.ts").click();
  await expect(page.getByTestId("git-diff-view").locator(".monaco-diff-editor")).toBeVisible();
  await expect(page.getByTestId("git-hunk-1")).toBeVisible();
  await page.screenshot({ path: screenshotPath("git-diff-hunks") });
  await page.getByTestId("git-hunk-stage-0").click();
  await expect(scm.row("staged", "src/app.ts")).toBeVisible();
  await expect(scm.row("changes", "src/app.ts")).toBeVisible();
  await page.screenshot({ path: screenshotPath("git-source-control") });

  await scm.commit("Add the first change");
  await expect(page.getByTestId("statusbar-sync")).toContainText("↑1");
  await scm.sync("push");
  const log = server.git("shop", ["log", "-1", "--format=%an <%ae>%n%s"]).trim();
  expect(log).toBe(`${admin.name} <${admin.email}>\nAdd the first change`);
  const pushed = server.git("shop", ["show", "main:src/app.ts"]);
  expect(pushed).toContain("// first change");
  expect(pushed).not.toContain("// second change");
  await expect(page.getByTestId("statusbar-sync")).toContainText("↓0 ↑0");
});

test("the agent's change is committed with a Co-authored-by trailer linking its session", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([
    {
      match: "Improve the README",
      text: "Reading it first.",
      toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "README.md" } }],
    },
    {
      match: "Sells things.",
      text: "Updating the README.",
      toolCalls: [
        {
          id: "call_edit",
          name: "edit",
          arguments: { path: "README.md", old_string: "Sells things.", new_string: "Sells useful things." },
        },
      ],
    },
    { match: "Edited", text: "Done." },
  ]);
  await ide.signIn(admin);
  await ide.openProject("Shop");
  await agent.ask("Improve the README");
  await agent.toolCard("Edit README.md").getByTestId("approve").click();
  await expect(agent.toolCard("Edit README.md")).toHaveAttribute("data-status", "done");
  await agent.expectStatus("idle");

  const scm = new SourceControlPage(page);
  await scm.show();
  await scm.stage("README.md");
  await scm.commit("Improve the README");
  await scm.sync("push");
  const message = server.git("shop", ["log", "-1", "--format=%B"]);
  expect(message).toMatch(
    /^Improve the README\n\nCo-authored-by: Tandem agent \(.+\) <agent\+[0-9a-f-]{36}@tandem\.invalid>\nTandem-Session: http.+\/p\/[0-9a-f-]{36}\?session=[0-9a-f-]{36}/,
  );
  expect(server.git("shop", ["log", "-1", "--format=%an"]).trim()).toBe(admin.name);

  // The trailer's link opens that session, even in a browser that had another one (or none) open.
  const link = new URL(message.match(/^Tandem-Session: (\S+)$/m)![1]!);
  // On the address the browser uses (no public URL is configured here), not a default one.
  expect(link.origin).toBe(new URL(page.url()).origin);
  await page.evaluate(() =>
    Object.keys(localStorage)
      .filter((k) => k.startsWith("tandem-agent-session:"))
      .forEach((k) => localStorage.removeItem(k)),
  );
  await page.goto(link.pathname + link.search);
  await expect(agent.userMessages().first()).toContainText("Improve the README");
  await expect(page).toHaveURL(new RegExp(`${link.pathname}$`));
});

test("a commit made elsewhere is pulled into the open editor", async ({ page, ide }) => {
  await ide.signIn(admin);
  await ide.openProject("Shop");
  await ide.openFile("README.md");
  server.commitElsewhere("shop", { "README.md": "# Shop\n\nSells useful things, fast.\n" }, "Speed");
  const scm = new SourceControlPage(page);
  await scm.show();
  await page.getByTestId("scm-fetch").click();
  await expect(page.getByTestId("statusbar-sync")).toContainText("↓1");
  await scm.sync("pull");
  await ide.expectEditorText("Sells useful things, fast.");
});

test("a merge conflict is listed, resolved in the editor, committed and pushed", async ({ page, ide, pageErrors }) => {
  // The pull that meets the conflict is answered 409, on purpose.
  pageErrors.allow(/status of 409 .*\/api\/trpc\/git\.pull/);
  await ide.signIn(admin);
  await ide.openProject("Shop");
  await ide.openFile("README.md");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("Mine.");
  await ide.save();
  const scm = new SourceControlPage(page);
  await scm.show();
  await scm.stage("README.md");
  await scm.commit("My line");
  server.commitElsewhere("shop", { "README.md": "# Shop\n\nSells useful things, fast.\nTheirs.\n" }, "Their line");

  await page.getByTestId("scm-pull").click();
  await expect(page.getByTestId("scm-notice")).toContainText("merge conflicts", { timeout: 30_000 });
  await expect(scm.row("merge", "README.md")).toBeVisible();
  await expect(page.getByTestId("scm-merge-banner")).toContainText("Merging");
  await page.screenshot({ path: screenshotPath("git-merge-conflict") });

  await scm.row("merge", "README.md").click();
  await ide.expectEditorText(/<<<<<<< HEAD[\s\S]*Mine\.[\s\S]*=======[\s\S]*Theirs\.[\s\S]*>>>>>>>/);
  await expect(page.getByTestId("git-conflict-banner")).toBeVisible();
  await page.screenshot({ path: screenshotPath("git-conflict-editor") });
  await page.getByTestId("git-accept-both").click();
  await ide.expectEditorText(/Mine\.\s*Theirs\./);
  await ide.save();
  await scm.stage("README.md", "merge");
  await scm.commit("Merge their line");
  await expect(page.getByTestId("scm-merge-banner")).toHaveCount(0);
  await scm.sync("push");
  const merged = server.git("shop", ["show", "main:README.md"]);
  expect(merged).toMatch(/Mine\.\nTheirs\./);
  expect(merged).not.toContain("<<<<<<<");
  expect(server.git("shop", ["log", "-1", "--format=%P"]).trim().split(" ")).toHaveLength(2);
});

test("credentials are listed by name and host only; the pull mode is a project setting", async ({ page, ide }) => {
  await ide.signIn(admin);
  await page.goto("/");
  await page.getByTestId("new-project-way-git").click();
  const host = new URL(remote()).host;
  const stored = page.getByTestId("git-credentials-user").getByTestId(`git-credential-${host} token`);
  await expect(stored).toContainText(host);
  await expect(page.locator("body")).not.toContainText(TOKEN);
  await page.screenshot({ path: screenshotPath("git-credentials"), fullPage: true });

  await ide.openProject("Shop");
  await page.getByTestId("project-settings").click();
  await expect(page.getByTestId("git-pull-mode")).toHaveValue("merge");
  await page.getByTestId("git-pull-mode").selectOption("rebase");
  await page.reload();
  await expect(page.getByTestId("git-pull-mode")).toHaveValue("rebase");
  await page.getByTestId("git-settings").screenshot({ path: screenshotPath("git-settings") });
});

test("a pull request opened from Source Control is posted in the open agent session, for everyone in it", async ({
  page,
  ide,
}) => {
  test.skip(!process.env.E2E_FORGE_PORT, "scripts/e2e.mjs serves the forge's API port");
  // GitHub's REST pulls endpoint on the port TANDEM_GIT_FORGES names: the one fake allowed, since a real forge cannot run here.
  const asked: Array<{ head: string; base: string; title: string; body: string; auth?: string }> = [];
  const api = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/api/v3/repos/acme/widgets/pulls")
        return res.writeHead(404).end('{"message":"Not Found"}');
      asked.push({
        ...(JSON.parse(raw) as { head: string; base: string; title: string; body: string }),
        auth: req.headers.authorization,
      });
      res
        .writeHead(201, { "content-type": "application/json" })
        .end(JSON.stringify({ number: 3, html_url: "https://github.example/acme/widgets/pull/3" }));
    });
  });
  await new Promise<void>((resolve) => api.listen(Number(process.env.E2E_FORGE_PORT), "127.0.0.1", resolve));
  try {
    server.createRepository("acme/widgets", { "README.md": "# Widgets\n" });
    const agent = new AgentPanel(page);
    await agent.script([{ match: "Ready to ship", text: "Go ahead." }]);
    await ide.signIn(admin);
    await page.goto("/");
    await page.getByTestId("new-project-way-git").click();
    await page.getByTestId("clone-url").fill(`${remote()}/acme/widgets.git`);
    await page.getByTestId("clone-submit").click();
    await expect(page.getByTestId("project-title")).toHaveText("widgets", { timeout: 30_000 });
    await ide.waitForLive();
    await agent.ask("Ready to ship");
    await expect(agent.assistantMessages().last().locator(".markdown")).toHaveText("Go ahead.");

    const scm = new SourceControlPage(page);
    await scm.show();
    await page.getByTestId("scm-branch").click();
    await page.getByTestId("branch-new-name").fill("ship-it");
    await page.getByTestId("branch-create").click();
    await expect(page.getByTestId("statusbar-branch")).toContainText("ship-it");
    await scm.sync("push");
    await page.getByTestId("scm-open-pull-request").click();
    await page.getByTestId("pull-request-title").fill("Ship the widgets");
    await page.getByTestId("pull-request-submit").click();
    await expect(page.getByTestId("scm-notice")).toContainText("Pull request opened.");
    await expect(page.getByTestId("scm-pull-request-link")).toHaveAttribute(
      "href",
      "https://github.example/acme/widgets/pull/3",
    );
    expect(asked).toEqual([
      { head: "ship-it", base: "main", title: "Ship the widgets", body: "", auth: `Bearer ${TOKEN}` },
    ]);

    const card = agent.panel().getByTestId("pull-request-card");
    await expect(card.getByTestId("pull-request-link")).toHaveText("Pull request #3: Ship the widgets");
    await expect(card.getByTestId("pull-request-link")).toHaveAttribute(
      "href",
      "https://github.example/acme/widgets/pull/3",
    );
    await expect(card).toContainText("You opened it from ship-it into main.");
    await page.screenshot({ path: screenshotPath("git-pull-request-in-session") });
  } finally {
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
});
