import { admin, expect, screenshotPath, test } from "./fixtures";

// A server started in a terminal listens in the workspace's own network: the IDE notices it,
// the Ports view shows the port and the process, and Stop ends it.

test("a server started in a terminal shows in the Ports view, and Stop ends it", async ({ page, ide }) => {
  test.skip(process.env.E2E_SANDBOX === "none", "workspace networks need bubblewrap (apt-get install bubblewrap)");
  await ide.signIn(admin);
  await ide.createProject("Ports");
  await ide.openTerminal();
  await ide.runInTerminal(
    `node -e 'require("http").createServer((q, s) => s.end("dev server")).listen(5173, () => console.log("ready on 5173"))' &`,
  );
  await expect(ide.terminalText()).toContainText("ready on 5173");

  const notice = page.getByTestId("port-notice");
  await expect(notice).toContainText("node is listening on 5173");
  await page.screenshot({ path: screenshotPath("port-notice") });
  await notice.getByRole("button", { name: "Show ports" }).click();

  const row = page.getByTestId("port-5173");
  await expect(row).toContainText("node -e");
  await expect(row).toContainText("all addresses");
  // The terminal reaches it; it is the workspace's, not the host's.
  await page.getByTestId("bottom-panel-terminal").click();
  await ide.runInTerminal("curl -s http://127.0.0.1:5173/; echo");
  await expect(ide.terminalText()).toContainText("dev server");
  await page.getByTestId("bottom-panel-ports").click();
  await page.screenshot({ path: screenshotPath("ports-view") });

  await row.getByRole("button", { name: "Stop the process on port 5173" }).click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId("ports-empty")).toBeVisible();
});
