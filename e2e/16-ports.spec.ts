import fs from "node:fs/promises";
import path from "node:path";
import { admin, expect, screenshotPath, test } from "./fixtures";

// A server started in a terminal listens in the workspace's own network: the IDE notices it, the
// Ports view shows the port and the process, the preview opens it on an origin of its own, and
// Stop ends it. The previewed app is the attacker: its page tries to read Tandem's cookie, call
// Tandem's API with the person's credentials, frame the IDE and plant a cookie Tandem reads.

const APP = `const http = require("http");
const fs = require("fs");
http
  .createServer((req, res) => {
    if (req.url === "/attack") return res.end(fs.readFileSync("attack.html"));
    res.setHeader("content-type", "text/plain");
    res.end("dev server; host " + req.headers.host + "; cookies " + (req.headers.cookie || "none"));
  })
  .listen(5173, () => console.log("ready on 5173"));
`;

const attackPage = (ide: string) => `<!doctype html><body><pre id="out">running</pre>
<iframe id="frame" src="${ide}/"></iframe>
<script>
(async () => {
  const out = { cookie: document.cookie };
  try {
    const answer = await fetch("${ide}/api/trpc/project.list", { credentials: "include" });
    out.read = "read: " + (await answer.text());
  } catch (error) {
    out.read = "blocked";
  }
  try {
    await fetch("${ide}/api/trpc/project.create", {
      method: "POST", mode: "no-cors", credentials: "include",
      headers: { "content-type": "text/plain" }, body: JSON.stringify({ name: "Planted by the preview" }),
    });
    out.write = "sent";
  } catch (error) {
    out.write = "blocked";
  }
  document.cookie = "better-auth.session_token=planted; domain=localhost; path=/";
  document.cookie = "planted_by_preview=1; domain=localhost; path=/";
  document.getElementById("out").textContent = "done " + JSON.stringify(out);
})();
</script>`;

test("a server started in a terminal: Ports view, its preview on an origin of its own, and Stop", async ({
  page,
  ide,
  baseURL,
  pageErrors,
}) => {
  // What the attack page runs into, and the preview's refusals, are the point of this test.
  pageErrors.allow(/\d+-[0-9a-f-]+\.localhost:\d+/);
  pageErrors.allow(/CORS policy|frame-ancestors|X-Frame-Options/);
  pageErrors.allow(/\/api\/trpc\/project\.(create|list)/);
  test.skip(process.env.E2E_SANDBOX === "none", "workspace networks need bubblewrap (apt-get install bubblewrap)");
  await ide.signIn(admin);
  await ide.createProject("Ports");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  await fs.writeFile(path.join(workspace, "app.js"), APP);
  await fs.writeFile(path.join(workspace, "attack.html"), attackPage(baseURL!));
  await ide.openTerminal();
  await ide.runInTerminal("node app.js &");
  await expect(ide.terminalText()).toContainText("ready on 5173");

  const notice = page.getByTestId("port-notice");
  await expect(notice).toContainText("node is listening on 5173");
  await page.screenshot({ path: screenshotPath("port-notice") });
  await notice.getByRole("button", { name: "Show ports" }).click();

  const row = page.getByTestId("port-5173");
  await expect(row).toContainText("node app.js");
  await expect(row).toContainText("all addresses");
  await page.screenshot({ path: screenshotPath("ports-view") });

  // The preview: a tab on <port>-<project>.localhost, with the Host the dev server expects and no cookie of Tandem's.
  const opened = page.context().waitForEvent("page");
  await row.getByRole("button", { name: "Open port 5173 in a new tab" }).click();
  const preview = await opened;
  await expect(preview.locator("body")).toContainText("dev server; host localhost:5173; cookies none");
  expect(new URL(preview.url()).hostname).toBe(`5173-${projectId}.localhost`);

  // The attack, from the previewed app's own page.
  await preview.goto(new URL("/attack", preview.url()).toString());
  await expect(preview.locator("#out")).toContainText("done");
  const result = JSON.parse((await preview.locator("#out").textContent())!.slice("done ".length)) as Record<
    string,
    string
  >;
  expect(result.cookie).not.toMatch(/better-auth|tandem/);
  expect(result.read).toBe("blocked");
  const framed =
    (await preview
      .frameLocator("#frame")
      .locator("body")
      .textContent({ timeout: 5_000 })
      .catch(() => "")) ?? "";
  expect(framed).not.toContain("Ports");
  const ideCookies = await page.context().cookies(baseURL!);
  expect(ideCookies.map((c) => c.name)).not.toContain("planted_by_preview");
  expect(ideCookies.filter((c) => c.name.includes("session_token")).map((c) => c.value)).not.toContain("planted");
  // The IDE still works as the person, and nothing was created by the page.
  await page.goto("/");
  await expect(page.getByText("Ports", { exact: true }).first()).toBeVisible();
  await expect(page.getByText("Planted by the preview")).toHaveCount(0);

  // Someone without the project's session on the preview's origin is refused.
  const stranger = await page.context().browser()!.newContext();
  const strangerPage = await stranger.newPage();
  await strangerPage.goto(new URL("/", preview.url()).toString());
  await expect(strangerPage.locator("body")).toContainText("This preview is private");
  await stranger.close();

  // Stop ends it, and the preview says so.
  await page.goto(`/p/${projectId}`);
  await page.getByTestId("bottom-panel-ports").click();
  await page.getByTestId("port-5173").getByRole("button", { name: "Stop the process on port 5173" }).click();
  await expect(page.getByTestId("port-5173")).toHaveCount(0);
  await expect(page.getByTestId("ports-empty")).toBeVisible();
  await preview.goto(new URL("/", preview.url()).toString());
  await expect(preview.locator("body")).toContainText("Nothing is listening on port 5173");
  await preview.screenshot({ path: screenshotPath("preview-stopped") });
});
