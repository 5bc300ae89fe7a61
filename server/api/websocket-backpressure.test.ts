import type { Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import WebSocket from "ws";
import { addMember } from "@/server/db/repositories/teams";
import { MAX_QUEUED_BYTES } from "@/server/http/bounded-sockets";
import { startHeldProject, type HeldProject } from "@/server/test/held-open";
import { signUpPerson } from "@/server/test/services";
import { until } from "@/server/test/until";

// What the server sends on a WebSocket waits in its memory until the client reads it. A viewer
// who subscribes to a session's events (or a setup's output, a folder's changes) and then never
// reads its socket had everything the session produced queued for it in the server, whose memory
// every team shares, for as long as it kept the connection open. A client that far behind is
// dropped; a browser reconnects and asks for what it missed (afterSeq).

let held: HeldProject;
let vera: { cookie: string; id: string };

beforeAll(async () => {
  held = await startHeldProject("backpressure");
  vera = await signUpPerson(held.env.services, "Vera");
  await addMember(held.env.services.db, held.teamId, vera.id, "viewer");
}, 60_000);

afterAll(() => held?.close());

it("drops a subscriber that stops reading instead of queuing a session's output for it", async () => {
  const ws = new WebSocket(`${held.base.replace("http", "ws")}/api/trpc/ws`, {
    headers: { cookie: vera.cookie, origin: held.base },
  });
  let received = 0;
  let closed = false;
  ws.on("message", (data: Buffer) => (received += data.length));
  ws.on("close", () => (closed = true));
  await new Promise((resolve) => ws.once("open", resolve));
  ws.send(
    JSON.stringify({
      id: 1,
      method: "subscription",
      params: { path: "session.events", input: { json: { sessionId: held.sessionId, afterSeq: 0 } } },
    }),
  );
  await until(() => received > 0, "the subscription's first message", 10_000);
  // From now on the viewer reads nothing.
  (ws as unknown as { _socket: Socket })._socket.pause();
  const owner = (await held.env.services.db.user.findFirstOrThrow({ where: { name: "Olive" } })).id;
  const text = "x".repeat(1024 * 1024);
  for (let i = 0; i < MAX_QUEUED_BYTES / text.length + 16; i++)
    await held.env.services.agent.log.append(held.sessionId, "user_message", { text, authorName: "Olive" }, owner);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const before = received;
  (ws as unknown as { _socket: Socket })._socket.resume();
  await until(
    () => closed || received - before > MAX_QUEUED_BYTES + 8 * 1024 * 1024,
    "the connection's end or all it queued",
    20_000,
  );
  ws.terminate();
  // Queued for it on the server meanwhile: what it read once it read again.
  expect(received - before).toBeLessThan(MAX_QUEUED_BYTES);
  expect(closed).toBe(true);
}, 60_000);
