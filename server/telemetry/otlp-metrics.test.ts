import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { otlpMetrics } from "./otlp-metrics";

// The exporter against a real OTLP/HTTP receiver on loopback that decodes each
// ExportMetricsServiceRequest (OTLP's JSON encoding) and keeps its data points by metric name.

type Point = { attributes: Record<string, unknown>; value: number };
let receiver: Server;
let url = "";
const requests: { headers: IncomingMessage["headers"]; body: unknown }[] = [];

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number };
const value = (v: AnyValue) =>
  v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue);

/** Every data point of the metric `name` in the latest request (cumulative: sums' values, histograms' counts). */
function points(name: string): Point[] {
  const out: Point[] = [];
  for (const { body } of requests.slice(-1)) {
    for (const rm of (body as { resourceMetrics: { scopeMetrics: { metrics: Record<string, never>[] }[] }[] })
      .resourceMetrics)
      for (const sm of rm.scopeMetrics)
        for (const metric of sm.metrics) {
          if (metric.name !== name) continue;
          const data = (metric.sum ?? metric.histogram) as { dataPoints: Record<string, unknown>[] };
          for (const p of data.dataPoints) {
            const attributes = Object.fromEntries(
              (p.attributes as { key: string; value: AnyValue }[]).map((a) => [a.key, value(a.value)]),
            );
            out.push({ attributes, value: Number(p.asInt ?? p.asDouble ?? p.count) });
          }
        }
  }
  return out;
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/metrics" && req.headers["content-type"] === "application/json")
        requests.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      res.setHeader("content-type", "application/json");
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/metrics`;
});
afterAll(() => receiver.close());

describe("OTLP metrics", () => {
  it("exports tool calls, durations, sizes, errors, model steps and tokens to the collector", async () => {
    const metrics = otlpMetrics({
      url,
      headers: { authorization: "Bearer t" },
      intervalMs: 60_000,
      serviceName: "tandem-test",
    });
    metrics.toolCall({ tool: "grep", model: "m1", durationMs: 12, ok: true, resultBytes: 300, truncated: false });
    metrics.toolCall({ tool: "grep", model: "m1", durationMs: 30, ok: true, resultBytes: 100, truncated: false });
    metrics.toolCall({
      tool: "edit",
      model: "m1",
      durationMs: 5,
      ok: false,
      errorCode: "NO_MATCH",
      resultBytes: 80,
      truncated: false,
    });
    metrics.modelStep({
      model: "m1",
      durationMs: 900,
      ok: true,
      usage: { inputTokens: 1000, outputTokens: 50, cachedInputTokens: 800, reasoningTokens: 0 },
    });
    await metrics.flush();
    expect(requests.length).toBeGreaterThan(0);
    expect(requests[0]!.headers.authorization).toBe("Bearer t");
    const resource = (
      requests[0]!.body as { resourceMetrics: { resource: { attributes: { key: string; value: AnyValue }[] } }[] }
    ).resourceMetrics[0]!.resource.attributes;
    expect(resource.find((a) => a.key === "service.name")?.value.stringValue).toBe("tandem-test");
    const calls = points("tandem.tool.calls");
    expect(calls.find((p) => p.attributes.tool === "grep")).toMatchObject({ value: 2, attributes: { ok: true } });
    expect(calls.find((p) => p.attributes.tool === "edit")).toMatchObject({
      value: 1,
      attributes: { ok: false, error_code: "NO_MATCH" },
    });
    expect(points("tandem.tool.duration").find((p) => p.attributes.tool === "grep")?.value).toBe(2);
    expect(points("tandem.tool.result_size").length).toBe(2);
    expect(points("tandem.model.steps")).toEqual([{ attributes: { model: "m1", ok: true }, value: 1 }]);
    const tokens = points("tandem.model.tokens");
    expect(tokens.find((p) => p.attributes.type === "cached")?.value).toBe(800);
    expect(tokens.find((p) => p.attributes.type === "input")?.value).toBe(1000);
    expect(points("tandem.model.duration")[0]?.value).toBe(1);
    await metrics.shutdown();
  });
});
