import http from "node:http";
import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";
import { BoardPage } from "./pages/board";
import { SourceControlPage } from "./pages/source-control";
import { startGitHttpServer, type GitHttpServer } from "../server/test/git-http-server";

// Finishing sessions on branches of their own, in the browser, against a real git server on
// loopback: two sessions change the same function differently; the first merges into main; the
// second's "Update from main" conflicts in its own tree, where Source Control (following the tree)
// lists the file and the merge editor resolves it; the second then merges, and "Push and open pull
// request" sends its branch to the git server and opens the pull request (the forge's REST API is
// the one thing scripted), whose link shows under the session and on its card on the board.

test.describe.configure({ timeout: 180_000 });

const TOKEN = "ghp_e2e_token_for_finish";
const ORIGINAL = "export function price(amount: number) {\n  return amount;\n}\n";
const RESOLVED = "export function price(amount: number) {\n  return Math.round(amount);\n  return amount * 2;\n}\n";
let server: GitHttpServer;
// Sandboxed, the server reaches the git server by a test name its egress proxy maps to loopback.
const remote = () => (process.env.E2E_SANDBOX === "none" ? server.url : server.url.replace("127.0.0.1", "git.test"));

test.beforeAll(async () => {
  server = await startGitHttpServer({ tokens: { [TOKEN]: "ada" } });
  server.createRepository("acme/pricing", { "src/price.ts": ORIGINAL });
});
test.afterAll(async () => server.close());

/** A session's turn: its shell writes `price`'s new body (approved in the page), then says it is done. */
function priceTurn(name: string, body: string) {
  const command = `printf '%s\\n' 'export function price(amount: number) {' '  return ${body};' '}' > src/price.ts && echo ${name}-done`;
  return [
    {
      match: `${name} the price`,
      toolCalls: [{ id: `call_${name}`, name: "shell", arguments: { command, description: `${name} the price` } }],
    },
    { match: `${name}-done`, text: `${name}: done.` },
  ];
}

test("update from main through the merge editor, merge, push and open the pull request; its link on the card", async ({
  page,
  ide,
}) => {
  test.skip(!process.env.E2E_FORGE_PORT, "scripts/e2e.mjs serves the forge's API port");
  // GitHub's REST pulls endpoint on the port TANDEM_GIT_FORGES names: the one fake allowed.
  const asked: Array<{ head: string; base: string; title: string }> = [];
  const api = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/api/v3/repos/acme/pricing/pulls")
        return res.writeHead(404).end('{"message":"Not Found"}');
      asked.push(JSON.parse(raw) as { head: string; base: string; title: string });
      res
        .writeHead(201, { "content-type": "application/json" })
        .end(JSON.stringify({ number: 9, html_url: "https://github.example/acme/pricing/pull/9" }));
    });
  });
  await new Promise<void>((resolve) => api.listen(Number(process.env.E2E_FORGE_PORT), "127.0.0.1", resolve));
  try {
    const agent = new AgentPanel(page);
    await agent.script([...priceTurn("Double", "amount * 2"), ...priceTurn("Round", "Math.round(amount)")]);
    await ide.signIn(admin);
    await page.goto("/");
    await page.getByTestId("new-project-way-git").click();
    await page.getByTestId("clone-url").fill(`${remote()}/acme/pricing.git`);
    await page.getByTestId("clone-token").fill(TOKEN);
    await page.getByTestId("clone-submit").click();
    await expect(page.getByTestId("project-title")).toHaveText("pricing", { timeout: 30_000 });
    await ide.waitForLive();

    // Two sessions, each on its own branch from main, change the same function differently.
    for (const name of ["Double", "Round"]) {
      await agent.newSession();
      await page.getByTestId("tree-choice-branch").check();
      await page.getByTestId("tree-choice-branch-name").fill(`tandem/${name.toLowerCase()}`);
      await agent.send(`${name} the price`);
      await expect(page.getByTestId("session-branch")).toContainText(`tandem/${name.toLowerCase()} from main`);
      await agent.toolCard(`${name} the price`).getByTestId("approve").click();
      await expect(agent.panel()).toContainText(`${name}: done.`);
      await agent.expectStatus("idle");
    }

    // The first merges into main.
    await page.getByTestId("session-back").click();
    await page.getByTestId("session-row").filter({ hasText: "Double the price" }).click();
    await page.getByTestId("session-merge").click();
    await expect(page.getByTestId("session-merged")).toContainText("tandem/double into main");

    // The second takes main's new commit: a conflict, in its own tree only.
    await page.getByTestId("session-back").click();
    await page.getByTestId("session-row").filter({ hasText: "Round the price" }).click();
    await page.getByTestId("session-update").click();
    const conflicts = page.getByTestId("session-conflicts");
    await expect(conflicts).toContainText("src/price.ts");
    await expect(page.getByTestId("session-ask-resolve")).toBeVisible();
    await page.getByTestId("session-branch").screenshot({ path: screenshotPath("branch-update-conflict") });

    // Resolve in Source Control: the IDE shows the session's tree, Source Control lists the file there.
    await page.getByTestId("session-show-tree").click();
    await expect(page).toHaveURL(/[?&]tree=[0-9a-f-]{36}/);
    const scm = new SourceControlPage(page);
    await scm.show();
    await expect(page.getByTestId("statusbar-branch")).toContainText("tandem/round");
    await expect(page.getByTestId("scm-tree-note")).toBeVisible();
    await expect(page.getByTestId("scm-push")).toHaveCount(0);
    await expect(scm.row("merge", "src/price.ts")).toBeVisible();
    await scm.row("merge", "src/price.ts").click();
    await ide.expectEditorText(
      /<<<<<<< HEAD[\s\S]*Math\.round\(amount\)[\s\S]*=======[\s\S]*amount \* 2[\s\S]*>>>>>>>/,
    );
    await expect(page.getByTestId("git-conflict-banner")).toBeVisible();
    await page.screenshot({ path: screenshotPath("branch-update-merge-editor") });
    // Both sides, one after the other: what the person then edits by hand (here: kept as is).
    await page.getByTestId("git-accept-both").click();
    await ide.expectEditorText(/return Math\.round\(amount\);\s*return amount \* 2;/);
    await ide.save();
    await scm.stage("src/price.ts", "merge");
    await scm.commit("Merge main into tandem/round");
    await expect(page.getByTestId("scm-merge-banner")).toHaveCount(0);
    await expect(conflicts).toHaveCount(0);

    // Merge into main (a fast-forward now), then push and open the pull request.
    await page.getByTestId("session-merge").click();
    await expect(page.getByTestId("session-merged")).toContainText("tandem/round into main");
    await page.getByTestId("session-push").click();
    const link = page.getByTestId("session-pull-request");
    await expect(link).toHaveAttribute("href", "https://github.example/acme/pricing/pull/9", { timeout: 30_000 });
    expect(asked).toEqual([expect.objectContaining({ head: "tandem/round", base: "main" })]);
    expect(server.git("acme/pricing", ["show", "tandem/round:src/price.ts"])).toBe(RESOLVED);
    await page.getByTestId("session-branch").screenshot({ path: screenshotPath("branch-pull-request") });

    // The card on the board carries the link.
    const board = new BoardPage(page);
    await board.open();
    await expect(board.row("Round the price").getByTestId("board-pull-request")).toHaveAttribute(
      "href",
      "https://github.example/acme/pricing/pull/9",
    );
    await page.getByTestId("session-board").screenshot({ path: screenshotPath("board-pull-request") });

    // The main tree holds exactly the merged result.
    await page.getByTestId("tree-switcher").selectOption("main");
    await expect(page).not.toHaveURL(/tree=/);
    // The tab open in the session's tree comes back in the main tree (tabs are kept per project).
    await scm.showExplorer();
    if (!(await ide.tab("src/price.ts").isVisible())) {
      await ide.treeItem("src").click();
      await ide.openFile("src/price.ts");
    } else await ide.tab("src/price.ts").click();
    await ide.expectEditorText(/return Math\.round\(amount\);\s*return amount \* 2;/);
    await scm.show();
    await expect(page.getByTestId("scm-clean")).toBeVisible();
    await expect(page.getByTestId("statusbar-branch")).toContainText("main");
  } finally {
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
});
