import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { canSwitchIdentity } from "@/server/sandbox/identity";
import { listenPreviews, type PreviewListener } from "@/server/http/preview-listener";
import { createAgentHarness, only } from "@/server/test/agent-harness";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { findChromium } from "./agent-browser/chromium";

// The agent checks its own UI change with its own eyes, through the real loop: the scripted model
// starts a server in the background with the shell (in bubblewrap, in the workspace's network),
// curls it in its next call, opens it in the browser (through the project's preview, as the
// person), reads the console error, fixes the file, and a second screenshot shows the fix.

const SERVER = `const http = require("http");
const fs = require("fs");
http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "text/html" });
  res.end(fs.readFileSync(__dirname + "/index.html"));
}).listen(5173, () => console.log("listening on 5173"));
`;
const PAGE = `<!doctype html><title>Counter</title><body style="font:40px sans-serif">
<h1 id="count">Loading…</h1>
<script>document.getElementById("count").textContent = "Count: " + countFrom(0);</script>
`;

const MODEL = "openai-compatible:scripted";
let h: Awaited<ReturnType<typeof createAgentHarness>>;
let previews: PreviewListener | undefined;

describeSandboxed("the agent's browser, scripted", () => {
  beforeAll(async () => {
    h = await createAgentHarness({
      coreTools: true,
      extensions: {},
      sandbox: "bwrap",
      browser: true,
      perProjectUid: canSwitchIdentity(),
    });
    previews = await listenPreviews(h.env.services);
    await h.caller.agent.updateSettings({ projectId: h.project.id, approvalMode: "yolo" });
    await h.caller.model.setSettings({
      model: MODEL,
      inputPerMTok: null,
      outputPerMTok: null,
      cachedInputPerMTok: null,
      contextWindow: null,
      acceptsImages: true,
    });
    const root = path.join(h.env.dataDir, "workspaces", h.project.id);
    await writeFile(path.join(root, "server.js"), SERVER);
    await writeFile(path.join(root, "index.html"), PAGE);
  }, 60_000);
  afterAll(async () => {
    previews?.closeSockets();
    previews?.listener.close();
    await h?.dispose();
  });

  it.runIf(canSwitchIdentity() && "path" in findChromium(undefined))(
    "starts a server, curls it, sees the console error, fixes it, and sees the fix",
    async () => {
      const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });
      const session = await h.newSession({
        replies: [
          call("shell", { command: "node server.js", run_in_background: true }),
          call("shell", {
            command: "curl -s --retry 20 --retry-connrefused --retry-delay 1 http://localhost:5173/",
          }),
          call("browser", { action: "navigate", url: "http://localhost:5173/" }),
          call("browser", { action: "console" }),
          call("read_file", { path: "index.html" }),
          call("edit", { path: "index.html", old_string: "countFrom(0)", new_string: "String(0)" }),
          call("browser", { action: "navigate", url: "http://localhost:5173/" }),
          call("browser", { action: "read" }),
          { text: "The counter shows Count: 0 now." },
        ],
      });
      const events = await h.send(session.id, "Check the counter page in the browser and fix what is wrong.");
      const results = only(events, "tool_result");
      const failed = results.filter((r) => !r.payload.ok).map((r) => `${r.payload.toolName}: ${r.payload.llm}`);
      expect(failed).toEqual([]);
      const [, curl, first, consoleRead, , , second, read] = results.map((r) => r.payload);
      expect(curl!.llm).toContain("<title>Counter</title>");
      expect(first!.llm).toContain("Page: Counter — http://localhost:5173/");
      expect(first!.llm).toContain("console error");
      expect(consoleRead!.llm).toContain("countFrom is not defined");
      expect(read!.llm).toContain("Count: 0");
      // Both screenshots are in the log as images, and they differ: the second shows the fix.
      const [before] = first!.images ?? [];
      const [after] = second!.images ?? [];
      expect(before?.mediaType).toBe("image/png");
      expect(after?.mediaType).toBe("image/png");
      expect(after!.hash).not.toBe(before!.hash);
      // The model saw the screenshot as an image.
      const sawImage = h.model.requests.some((r) =>
        r.messages.some((m) => JSON.stringify(m.content ?? "").includes("data:image/png;base64,")),
      );
      expect(sawImage).toBe(true);
    },
    120_000,
  );
});
