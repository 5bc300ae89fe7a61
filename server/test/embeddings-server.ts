import http from "node:http";
import type { AddressInfo } from "node:net";

// A deterministic embeddings server for tests: it speaks OpenAI's `POST /v1/embeddings` (the
// format the AI SDK's OpenAI-compatible provider sends), so Tandem's real embedding code runs
// against it. A text's vector counts the character trigrams of its words ("#rate#" gives #ra, rat,
// ate, te#), each hashed into one of 1024 dimensions, normalised to unit length: texts sharing word
// parts are near, whether or not they share whole words ("ratelimiter" is near "rate limiter",
// which full-text search does not match). `failWith` makes every request fail with that status.

const DIMENSIONS = 1024;

export function embedText(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const padded = `#${word}#`;
    for (let i = 0; i + 3 <= padded.length; i++) vector[fnv1a(padded.slice(i, i + 3)) % DIMENSIONS]! += 1;
  }
  const length = Math.hypot(...vector) || 1;
  return vector.map((v) => v / length);
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

export async function startEmbeddingsServer() {
  /** Every text embedded, in order (queries included). */
  const embedded: string[] = [];
  let failWith: number | null = null;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/embeddings")) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      if (failWith) {
        res
          .writeHead(failWith, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: "embeddings backend is down", type: "server_error" } }));
        return;
      }
      const request = JSON.parse(body) as { model: string; input: string | string[] };
      const inputs = Array.isArray(request.input) ? request.input : [request.input];
      embedded.push(...inputs);
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          object: "list",
          model: request.model,
          data: inputs.map((text, index) => ({ object: "embedding", index, embedding: embedText(text) })),
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    embedded,
    fail(status: number | null) {
      failWith = status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
