import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "@/e2e/fixtures/model-server/server";
import { loadConfig } from "@/server/env/load-config";
import { createModelCatalog } from "./model-catalog";
import { createModelRegistry } from "./providers";

// The model registry asks OpenAI-compatible servers (Ollama, vLLM, LM Studio) what they can run,
// against real local HTTP servers: the scripted model server and a few badly behaved ones.

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
const servers: http.Server[] = [];
async function serve(handler: Handler): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}
async function closedPortUrl(): Promise<string> {
  const url = await serve(() => {});
  await new Promise((resolve) => servers.pop()!.close(resolve));
  return url;
}

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(async () => {
  await model.close();
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

const byProvider = async (registry: ReturnType<typeof createModelRegistry>) =>
  new Map((await registry.providers()).map((p) => [p.provider, p]));

describe("model registry", () => {
  it("lists what an OpenAI-compatible server has; Ollama that is neither set up nor running is not offered", async () => {
    const config = loadConfig({ TANDEM_OPENAI_COMPATIBLE_BASE_URL: model.url, OLLAMA_BASE_URL: undefined });
    const registry = createModelRegistry({
      ...config.models,
      connections: {
        ...config.models.connections,
        ollama: { baseURL: await closedPortUrl(), apiKey: undefined, explicit: false },
      },
    });
    const providers = await byProvider(registry);
    expect(providers.get("openai-compatible")).toMatchObject({ configured: true, models: ["scripted"] });
    expect(providers.get("ollama")).toMatchObject({ configured: false, models: [] });
    expect(providers.get("ollama")!.unreachable).toBeUndefined();
    expect(providers.get("anthropic")).toMatchObject({ configured: false, models: [] });
  });

  it("offers Ollama as soon as it answers, with its installed models, and says why when a chosen one does not", async () => {
    const ollama = await serve((req, res) => {
      expect(req.url).toBe("/v1/models");
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "list", data: [{ id: "qwen3:8b" }, { id: "llama3.2:3b" }] }));
    });
    const running = createModelRegistry({
      ...loadConfig({}).models,
      connections: { ollama: { baseURL: ollama, apiKey: undefined, explicit: false } },
    });
    expect((await byProvider(running)).get("ollama")).toMatchObject({
      configured: true,
      models: ["llama3.2:3b", "qwen3:8b"],
    });

    const down = await closedPortUrl();
    const chosen = createModelRegistry(loadConfig({ OLLAMA_BASE_URL: down }).models);
    const info = (await byProvider(chosen)).get("ollama")!;
    expect(info).toMatchObject({ configured: true, models: [] });
    expect(info.unreachable).toBe(`${down}: not reachable`);
  });

  it("sends the API key, and turns refusals and answers that are not a model list into a reason", async () => {
    const seen: (string | undefined)[] = [];
    const refusing = await serve((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"bad key"}');
    });
    const html = await serve(
      (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end("<html>a login page</html>"),
    );
    const wrongShape = await serve(
      (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end('{"models":["a"]}'),
    );
    const catalog = createModelCatalog();
    expect(await catalog.list(refusing, "sk-test")).toEqual({ reachable: false, reason: "GET /models answered 401" });
    expect(seen).toEqual(["Bearer sk-test"]);
    expect(await catalog.list(html)).toEqual({ reachable: false, reason: "GET /models did not answer a model list" });
    expect(await catalog.list(wrongShape)).toEqual({
      reachable: false,
      reason: "GET /models did not answer a model list",
    });
  });

  it("gives up on a server that does not answer, and asks again only after a while", async () => {
    let asked = 0;
    const hanging = await serve(() => void asked++);
    const catalog = createModelCatalog({ timeoutMs: 200, ttlMs: 60_000 });
    const started = Date.now();
    expect(await catalog.list(hanging)).toEqual({ reachable: false, reason: "no answer within 200 ms" });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await catalog.list(hanging)).toEqual({ reachable: false, reason: "no answer within 200 ms" });
    expect(asked).toBe(1);

    const fresh = createModelCatalog({ ttlMs: 0 });
    await fresh.list(model.url);
    await fresh.list(model.url);
    const counting = await serve((_req, res) => void (asked++, res.writeHead(200).end('{"data":[]}')));
    await fresh.list(counting);
    await fresh.list(counting);
    expect(asked).toBe(3);
  });
});
