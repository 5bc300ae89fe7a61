import fs from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { EVERYTHING } from "@/server/test/everything-mcp-server";

// Images reach the model: a read_file of an image, an MCP tool's image content and an image pasted
// into the composer become image parts of the request the (scripted, OpenAI-compatible) model
// server receives, when the model reads images; otherwise the model reads a note instead. The log
// holds a reference (hash, type, size), never the base64.

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const MODEL = "openai-compatible:scripted";

let h: Awaited<ReturnType<typeof createAgentHarness>>;
/** The AI SDK's deprecation warnings, as a server log would print them. */
const deprecations: string[] = [];
const onWarning = (warning: Error & { code?: string }) => {
  if (warning.code?.startsWith("AISDK_DEP")) deprecations.push(warning.message);
};
beforeAll(async () => {
  process.on("warning", onWarning);
  h = await createAgentHarness({ coreTools: true, extensions: {} });
  await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
  await fs.writeFile(path.join(h.env.dataDir, "workspaces", h.project.id, "dot.png"), PNG);
});
afterAll(async () => {
  process.off("warning", onWarning);
  await h.dispose();
});

const setAcceptsImages = (acceptsImages: boolean) =>
  h.caller.model.setSettings({
    model: MODEL,
    inputPerMTok: null,
    outputPerMTok: null,
    contextWindow: null,
    acceptsImages,
  });

type Part = { type: string; text?: string; image_url?: { url: string } };
const partsOf = (request = h.model.requests.at(-1)!) =>
  request.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Part[]) : []));
const imageUrls = () =>
  partsOf()
    .filter((p) => p.type === "image_url")
    .map((p) => p.image_url!.url);

describe("images reach the model", () => {
  it("read_file of an image: an image part for a model that reads images, stored once by reference", async () => {
    await setAcceptsImages(true);
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "dot.png" } }] },
        { match: "", text: "A dot." },
      ],
    });
    const events = await h.send(session.id, "look at dot.png");
    expect(imageUrls()).toEqual([`data:image/png;base64,${PNG.toString("base64")}`]);
    const result = only(events, "tool_result")[0]!.payload;
    expect(result.images).toEqual([
      { hash: expect.stringMatching(/^[0-9a-f]{64}$/), mediaType: "image/png", size: PNG.length },
    ]);
    expect(JSON.stringify(events)).not.toContain(PNG.toString("base64"));
    // The person's view: the thumbnail's bytes come from the session, for those who may see it.
    const image = await h.caller.session.image({ sessionId: session.id, hash: result.images![0]!.hash });
    expect(Buffer.from(image.data, "base64")).toEqual(PNG);
  });

  it("a model that does not read images gets a note instead", async () => {
    await setAcceptsImages(false);
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "c1", name: "read_file", arguments: { path: "dot.png" } }] },
        { match: "", text: "ok" },
      ],
    });
    await h.send(session.id, "look at dot.png again");
    expect(imageUrls()).toEqual([]);
    const tool = h.model.requests.at(-1)!.messages.find((m) => m.role === "tool")!;
    expect(String(tool.content)).toMatch("The current model cannot view images");
  });

  it("an image pasted into the composer goes with the message", async () => {
    await setAcceptsImages(true);
    const session = await h.newSession({ replies: [{ text: "I see a dot." }] });
    const ref = await h.caller.session.attachImage({
      sessionId: session.id,
      mediaType: "image/png",
      data: PNG.toString("base64"),
    });
    await h.caller.session.send({ sessionId: session.id, text: "what is this?", images: [ref.hash] });
    await h.agent.idle(session.id);
    const user = h.model.requests.at(-1)!.messages.findLast((m) => m.role === "user")!;
    expect(user.content).toEqual([
      // The author's name goes first (lib/model-transcript.ts).
      { type: "text", text: expect.stringMatching(/^\[[^\]]+\] what is this\?$/) },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG.toString("base64")}` } },
    ]);
    await expect(
      h.caller.session.attachImage({
        sessionId: session.id,
        mediaType: "image/png",
        data: Buffer.from("not a png").toString("base64"),
      }),
    ).rejects.toThrow("not a image/png image");
    await expect(
      h.caller.session.send({ sessionId: session.id, text: "and this?", images: ["0".repeat(64)] }),
    ).rejects.toThrow("not stored with this session");
  });

  it("an MCP tool's image content reaches the model", async () => {
    await setAcceptsImages(true);
    const saved = await h.caller.extensions.updateSettings({
      projectId: h.project.id,
      mcpServersText: JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], trust: true } },
      }),
    });
    expect(saved.ok).toBe(true);
    await h.waitFor(
      async () =>
        (await h.caller.extensions.status({ projectId: h.project.id })).servers.some((s) => s.status === "connected"),
      30_000,
    );
    const session = await h.newSession({
      replies: [
        { toolCalls: [{ id: "c1", name: "everything__get-tiny-image", arguments: {} }] },
        { match: "", text: "Tiny." },
      ],
    });
    const events = await h.send(session.id, "get the tiny image");
    expect(only(events, "tool_result")[0]!.payload.images).toHaveLength(1);
    expect(imageUrls()).toHaveLength(1);
    expect(imageUrls()[0]).toMatch(/^data:image\/png;base64,/);
  }, 60_000);

  // Runs last: every request above carried images. The AI SDK deprecates its "image" part, and a
  // server log would print its warning at every request with one.
  it("sends images the way the AI SDK asks, without deprecation warnings", () => {
    expect(h.model.requests.length).toBeGreaterThan(0);
    expect(deprecations).toEqual([]);
  });
});
