import fs from "node:fs/promises";
import path from "node:path";
import type { Frame, Page, WebSocket } from "@playwright/test";
import { admin, expect, newContext, screenshotPath, signUpPerson, test, type TestUser } from "./fixtures";
import { copyVite } from "./vite-app";

// The Preview panel against a real Vite dev server started from the terminal: the notice of the
// new port, the preview beside the editor, a change made in Monaco reaching it through hot reload
// (its WebSocket through the preview proxy, the page not reloaded), the page's console error in
// the panel; a teammate opens the same preview, a stranger is refused, and a public link works in
// a browser of its own until it is revoked, which closes its open hot-reload WebSocket at once.

const teammate: TestUser = { name: "Tia Teammate", email: "tia.preview@example.com", password: "staple-lamp-orbit-17" };
const TEAM = "Preview crew";

const APP = {
  "package.json": JSON.stringify({ name: "greeter", private: true, type: "module", scripts: { dev: "vite" } }),
  "vite.config.js": `export default { server: { port: 5173, strictPort: true } };\n`,
  "index.html": `<!doctype html><html><head><title>Greeter</title><link rel="icon" href="data:,"></head><body><h1 id="app"></h1><script type="module" src="/main.js"></script></body></html>\n`,
  "greeting.js": `export const greeting = "Hello from Vite";\n`,
  "main.js": `import { greeting } from "./greeting.js";
const app = document.getElementById("app");
app.textContent = greeting;
console.error("Preview check: the app logged an error");
if (import.meta.hot) import.meta.hot.accept("./greeting.js", (next) => { app.textContent = next.greeting; });
`,
};

/** The preview's frame inside the IDE's page. */
async function previewFrame(page: Page, projectId: string): Promise<Frame> {
  let frame: Frame | undefined;
  await expect
    .poll(() => {
      frame = page.frames().find((f) => f.url().startsWith(`http://5173-${projectId}.localhost:`));
      return frame !== undefined;
    })
    .toBe(true);
  return frame!;
}

test("a Vite dev server in the Preview panel: hot reload, console errors, a teammate who signs out, a stranger, a public link", async ({
  page,
  ide,
  browser,
  pageErrors,
}) => {
  test.skip(process.env.E2E_SANDBOX === "none", "workspace networks need bubblewrap (apt-get install bubblewrap)");
  test.setTimeout(180_000);
  // The app's own console error is what the panel must show; the revoked link's page loses its socket.
  pageErrors.allow(/Preview check: the app logged an error/);
  pageErrors.allow(/WebSocket connection to 'ws:\/\/5173-[0-9a-f-]+\.localhost:\d+\/.*' failed/);
  pageErrors.allow(/status of 403 \(Forbidden\).*5173-[0-9a-f-]+\.localhost/);
  pageErrors.allow(/Failed to load resource: the server responded with a status of 403/);
  // The teammate's IDE, still open after they sign out, asks on and is refused.
  pageErrors.allow(/status of 401 \(Unauthorized\) .*\/api\/trpc\//);

  await ide.signIn(admin);
  const tia = await signUpPerson(browser, page, teammate);
  await page.goto("/");
  await page.getByTestId("team-new").click();
  await page.getByTestId("team-name").fill(TEAM);
  await page.getByTestId("team-create").click();
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await page.getByTestId("team-settings").click();
  await page.getByTestId("team-invite-role").selectOption("member");
  await page.getByTestId("team-invite-create").click();
  const invite = await page.getByTestId("team-invite-link").inputValue();
  await tia.page.goto(invite);
  await tia.page.getByTestId("join-accept").click();
  await expect(tia.page.getByTestId("team-role")).toHaveText("member");

  await page.goto("/");
  await expect(page.getByTestId("team-switcher").locator("option:checked")).toHaveText(TEAM);
  await ide.createProject("Greeter");
  const projectId = /\/p\/([^/?#]+)/.exec(page.url())![1]!;
  const workspace = path.join(process.env.E2E_DATA_DIR ?? ".tandem-e2e", "workspaces", projectId);
  for (const [name, text] of Object.entries(APP)) await fs.writeFile(path.join(workspace, name), text);
  await copyVite(workspace);

  // `npm run dev` in a terminal: the notice offers the preview.
  await ide.openTerminal();
  await ide.runInTerminal("npm run dev");
  await expect(ide.terminalText()).toContainText("ready in", { timeout: 60_000 });
  const notice = page.getByTestId("port-notice");
  await expect(notice).toContainText("is listening on 5173", { timeout: 20_000 });
  await page.screenshot({ path: screenshotPath("preview-notice") });
  await notice.getByRole("button", { name: "Open preview" }).click();

  // The preview beside the editor, on its own origin, and the app's console error in the panel.
  const panel = page.getByTestId("preview-panel");
  await expect(panel).toBeVisible();
  const frame = await previewFrame(page, projectId);
  await expect(frame.locator("#app")).toHaveText("Hello from Vite", { timeout: 30_000 });
  await expect(page.getByTestId("preview-address")).toHaveValue("/");
  await expect(page.getByTestId("preview-errors-toggle")).toHaveText("Errors 1");
  await page.getByTestId("preview-errors-toggle").click();
  await expect(page.getByTestId("preview-errors")).toContainText("Preview check: the app logged an error");

  // A change in Monaco reaches the page through hot reload: the same page, not a reloaded one.
  await frame.evaluate(() => {
    (window as unknown as { keptAcrossHotReload: boolean }).keptAcrossHotReload = true;
  });
  await ide.openFile("greeting.js");
  await ide.editor().locator(".view-lines").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.insertText(`export const greeting = "Hello from Tandem";\n`);
  await ide.save();
  await expect(frame.locator("#app")).toHaveText("Hello from Tandem", { timeout: 20_000 });
  expect(await frame.evaluate(() => (window as unknown as { keptAcrossHotReload?: boolean }).keptAcrossHotReload)).toBe(
    true,
  );
  await page.screenshot({ path: screenshotPath("preview-panel") });
  await page.getByLabel("Width").selectOption("phone");
  await expect(page.getByTestId("preview-frame")).toHaveAttribute("style", /width: 390px/);
  await page.screenshot({ path: screenshotPath("preview-panel-phone") });
  await page.getByLabel("Width").selectOption("desktop");

  // The address bar goes to a path within the port; Back returns to the one before.
  const shown = page.frameLocator("[data-testid=preview-frame]").locator("#app");
  await page.getByTestId("preview-address").fill("/about?from=address-bar");
  await page.getByTestId("preview-address").press("Enter");
  await expect(shown).toHaveText("Hello from Tandem", { timeout: 20_000 });
  await expect(page.getByTestId("preview-address")).toHaveValue("/about?from=address-bar");
  await page.getByRole("button", { name: "Back", exact: true }).click();
  await expect(page.getByTestId("preview-address")).toHaveValue("/");
  await expect(shown).toHaveText("Hello from Tandem", { timeout: 20_000 });
  await expect(page).toHaveURL(new RegExp(`/p/${projectId}$`));

  // The teammate opens the same preview from the Ports view.
  await tia.page.goto(`/p/${projectId}`);
  await tia.page.getByTestId("bottom-panel-ports").click();
  const tiaHotReload = tia.page.waitForEvent("websocket", {
    predicate: (ws) => ws.url().includes(`//5173-${projectId}.localhost:`),
  });
  await tia.page.getByRole("button", { name: "Open a preview of port 5173" }).click();
  await expect((await previewFrame(tia.page, projectId)).locator("#app")).toHaveText("Hello from Tandem", {
    timeout: 30_000,
  });

  // The teammate signs out, the IDE still on screen: their preview's hot reload ends at once, and
  // the preview cookie left in their browser, replayed by the next person at the keyboard, opens
  // neither a page nor a WebSocket.
  const tiaSocket = await tiaHotReload;
  const tiaSocketClosed = new Promise<void>((resolve) => tiaSocket.on("close", () => resolve()));
  const left = (await tia.page.context().cookies()).find((c) => c.name === "tandem_preview");
  expect(left?.value).toBeTruthy();
  expect(await tia.page.evaluate(async () => (await fetch("/api/auth/sign-out", { method: "POST" })).status)).toBe(200);
  await Promise.race([
    tiaSocketClosed,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error("the signed-out preview's WebSocket stayed open")), 5_000),
    ),
  ]);
  const nextPerson = await newContext(browser);
  const previewAt = new URL(tiaSocket.url().replace(/^ws/, "http")).origin;
  await nextPerson.addCookies([{ name: "tandem_preview", value: left!.value, url: previewAt, httpOnly: true }]);
  const nextPage = await nextPerson.newPage();
  await nextPage.goto(`${previewAt}/`);
  await expect(nextPage.locator("body")).toContainText("This preview is private");
  const replayedSocket = await nextPage.evaluate(
    (url) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(url, "vite-hmr");
        socket.onopen = () => resolve("open");
        socket.onerror = () => resolve("refused");
      }),
    tiaSocket.url(),
  );
  expect(replayedSocket).toBe("refused");
  await nextPerson.close();

  // The IDE's pages may frame the previews' origins, and no other.
  const previewOrigin = new URL(frame.url()).origin;
  const csp = (await page.request.get(`/p/${projectId}`)).headers()["content-security-policy"] ?? "";
  expect(csp).toContain(`frame-src 'self' ${previewOrigin.replace(/\/\/[^.]+\./, "//*.")};`);

  // A stranger (a browser with no preview session there) is refused.
  const stranger = await newContext(browser);
  const strangerPage = await stranger.newPage();
  await strangerPage.goto(`${previewOrigin}/`);
  await expect(strangerPage.locator("body")).toContainText("This preview is private");
  await stranger.close();

  // A public link, made in the Ports view, works in a fresh browser, hot reload's WebSocket included.
  await page.getByTestId("bottom-panel-ports").click();
  await page.getByTestId("create-preview-link").click();
  const linkUrl = await page.getByTestId("preview-link-url").inputValue();
  expect(linkUrl).toMatch(new RegExp(`^${previewOrigin}/__tandem/link\\?t=[A-Za-z0-9_-]{43}$`));
  await page.screenshot({ path: screenshotPath("preview-ports-view") });
  const guest = await newContext(browser);
  const guestPage = await guest.newPage();
  const socketOpened = guestPage.waitForEvent("websocket");
  await guestPage.goto(linkUrl);
  await expect(guestPage.locator("#app")).toHaveText("Hello from Tandem", { timeout: 30_000 });
  const socket: WebSocket = await socketOpened;
  const socketClosed = new Promise<void>((resolve) => socket.on("close", () => resolve()));

  // Revoked: the open WebSocket closes at once, and nothing of the link opens again.
  await page.getByRole("button", { name: "Revoke the public link of port 5173" }).click();
  await Promise.race([
    socketClosed,
    new Promise((_, reject) => setTimeout(() => reject(new Error("the link's WebSocket stayed open")), 5_000)),
  ]);
  await guestPage.goto(`${previewOrigin}/`);
  await expect(guestPage.locator("body")).toContainText("This preview is private");
  await guestPage.goto(linkUrl);
  await expect(guestPage.locator("body")).toContainText("This link does not work");
  await guest.close();

  // The panel closes, leaving the editor its width.
  await page.getByRole("button", { name: "Close the preview" }).click();
  await expect(panel).toHaveCount(0);
});
