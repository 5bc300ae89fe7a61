import type { RequestMessage, ResponseMessage } from "vscode-jsonrpc/node";
import { expect, it } from "vitest";
import { PendingRequests } from "./pending-requests";

const answer = (id: number, result: unknown) => ({ jsonrpc: "2.0", id, result }) as ResponseMessage;

it("sends two clients' requests with the same id under ids of its own, and answers each under its own id", () => {
  const pending = new PendingRequests("typescript");
  const first = pending.forClient("tab-1", 1, "textDocument/hover");
  const second = pending.forClient("tab-2", 1, "textDocument/hover");
  expect(first).not.toBe(second);
  expect(pending.settle(answer(second, "two"))).toEqual({ clientId: "tab-2", response: answer(1, "two") });
  expect(pending.settle(answer(first, "one"))).toEqual({ clientId: "tab-1", response: answer(1, "one") });
  // An answer no one waits for (answered already, or made up by the server) goes nowhere.
  expect(pending.settle(answer(first, "again"))).toBeNull();
});

it("settles its own requests, fails them when the server stops, and forgets a client that left", async () => {
  const pending = new PendingRequests("typescript");
  const sent: RequestMessage[] = [];
  const own = pending.internal((message) => sent.push(message), "initialize", {}, 5_000);
  expect(pending.settle(answer(sent[0]!.id as number, { capabilities: {} }))).toBeNull();
  await expect(own).resolves.toEqual({ capabilities: {} });

  const lost = pending.internal((message) => sent.push(message), "shutdown", null, 5_000);
  const leaving = pending.forClient("tab-1", "a", "textDocument/definition");
  pending.forClient("tab-2", 7, "textDocument/definition");
  expect(pending.idsOf("tab-1", "a")).toEqual([leaving]);
  pending.dropClient("tab-1");
  expect(pending.idsOf("tab-1", "a")).toEqual([]);
  const told: Array<[string, number | string]> = [];
  pending.failAll("The typescript language server stopped.", (clientId, id) => told.push([clientId, id]));
  await expect(lost).rejects.toThrow("stopped");
  expect(told).toEqual([["tab-2", 7]]);
});

it("gives up on its own request that is not answered in time, naming the server and the method", async () => {
  const pending = new PendingRequests("gopls");
  await expect(pending.internal(() => {}, "initialize", {}, 10)).rejects.toThrow(
    "The gopls language server did not answer initialize within 0 s.",
  );
});
