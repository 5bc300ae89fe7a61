import { admin, expect, screenshotPath, test } from "./fixtures";
import { AgentPanel } from "./pages/agent";

// A screenshot pasted into the composer: a thumbnail to check (and remove) before sending, the
// thumbnail in the transcript after, and an image part in what the model received (the scripted
// model server records its requests), once an admin has said the model reads images.

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR42mP8z8Dwn4GBgYGJAQoAAB4sAf+LtR1xAAAAAElFTkSuQmCC";
const controlUrl = `http://127.0.0.1:${process.env.E2E_MODEL_CONTROL_PORT ?? 3102}`;

test("a pasted screenshot reaches the model and shows in the transcript", async ({ page, ide }) => {
  const agent = new AgentPanel(page);
  await agent.script([{ match: "what does this screenshot show", text: "A small square." }]);
  await ide.signIn(admin);
  const set = await page.evaluate(async () => {
    const response = await fetch("/api/trpc/model.setSettings", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        json: {
          model: "openai-compatible:scripted",
          inputPerMTok: null,
          outputPerMTok: null,
          contextWindow: null,
          acceptsImages: true,
        },
      }),
    });
    return response.status;
  });
  expect(set).toBe(200);
  await ide.createProject("Screenshots");
  await agent.newSession();
  await expect(page.getByTestId("model-picker")).toContainText("openai-compatible:scripted · reads images");

  const paste = (name: string, type: string, base64: string) =>
    page.getByTestId("composer-input").evaluate(
      (el, file) => {
        const data = new DataTransfer();
        data.items.add(
          new File([Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0))], file.name, { type: file.type }),
        );
        el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      },
      { name, type, base64 },
    );
  await paste("notes.tiff", "image/tiff", PNG);
  await expect(page.getByTestId("composer-image-problem")).toContainText("image/tiff is not supported");
  await paste("shot.png", "image/png", PNG);
  await paste("again.png", "image/png", PNG);
  await expect(page.getByTestId("composer-image")).toHaveCount(2);
  await page.getByRole("button", { name: "Remove again.png" }).click();
  await expect(page.getByTestId("composer-image")).toHaveCount(1);
  await page.getByTestId("composer-input").fill("what does this screenshot show?");
  await page.getByTestId("composer").screenshot({ path: screenshotPath("composer-pasted-image") });
  await page.getByTestId("composer-input").press("Enter");

  await expect(agent.assistantMessages().last()).toContainText("A small square.");
  await expect(agent.userMessages().last().getByTestId("message-image")).toBeVisible();
  expect(await agent.userMessages().last().getByTestId("message-image").getAttribute("src")).toMatch(/^blob:/);
  await expect(page.getByTestId("composer-image")).toHaveCount(0);
  await page.screenshot({ path: screenshotPath("transcript-image") });

  const requests = (await (await fetch(`${controlUrl}/requests`)).json()) as Array<{
    messages: Array<{ role: string; content: unknown }>;
  }>;
  const asked = requests.findLast((r) => JSON.stringify(r.messages).includes("what does this screenshot show"))!;
  const user = asked.messages.findLast((m) => m.role === "user")!;
  expect(user.content).toEqual([
    // The author's name goes first (lib/model-transcript.ts).
    { type: "text", text: `[${admin.name}] what does this screenshot show?` },
    { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
  ]);
});
