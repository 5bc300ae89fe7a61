import type http from "node:http";
import { TRPCError } from "@trpc/server";
import type { Services } from "@/server/api/context";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { findUser } from "@/server/db/repositories/users";
import { forgeDelivery } from "@/server/services/forge-events";
import type { SessionStarter } from "@/server/services/forge-requests";
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_MAX_BYTES,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  webhookPayload,
} from "@/lib/webhooks";

// POST /api/hooks/projects/<projectId>: a signed delivery (lib/webhooks.ts) starts a session in that
// project. The delivery is checked first (server/services/project-webhooks.ts); the session is then
// started through the same procedures a script calls (session.create or tree.startSession, then
// session.send), as the webhook's own account, so it gets exactly that account's rights in the team.
// A forge's delivery to the same URL (GitHub, GitLab, Gitea/Forgejo, told apart by their headers)
// goes to server/services/forge-requests.ts: an `@tandem` comment starts a session the same way.

export const WEBHOOK_PREFIX = "/api/hooks/projects/";
const ROUTE = /^\/api\/hooks\/projects\/([0-9a-f-]{36})$/i;

const createCaller = createCallerFactory(appRouter);
const STATUS: Record<string, number> = { UNAUTHORIZED: 401, FORBIDDEN: 403, NOT_FOUND: 404, BAD_REQUEST: 400 };

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
};

/** The request's body, or null past `limit` bytes (the rest is not read). */
async function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export async function handleProjectWebhook(services: Services, req: http.IncomingMessage, res: http.ServerResponse) {
  const match = ROUTE.exec(new URL(req.url ?? "/", "http://local").pathname);
  if (!match) return json(res, 404, { error: "No webhook here." });
  if (req.method !== "POST") return json(res, 405, { error: "POST a signed JSON delivery." });
  const projectId = match[1]!.toLowerCase();
  try {
    const body = await readBody(req, WEBHOOK_MAX_BYTES);
    if (!body) return json(res, 413, { error: `The delivery is larger than ${WEBHOOK_MAX_BYTES} bytes.` });
    const header = (name: string) => {
      const value = req.headers[name];
      return typeof value === "string" ? value : null;
    };
    const forge = forgeDelivery(header);
    if (forge) {
      const answer = await services.forgeRequests.receive(projectId, forge, body, starter(services));
      return json(res, answer.status, answer.body);
    }
    const check = await services.webhooks.verify(
      projectId,
      {
        timestamp: header(WEBHOOK_TIMESTAMP_HEADER),
        delivery: header(WEBHOOK_DELIVERY_HEADER),
        signature: header(WEBHOOK_SIGNATURE_HEADER),
      },
      body,
    );
    if (!check.ok) return json(res, check.status, { error: check.message });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch {
      return json(res, 400, { error: "The body is not JSON." });
    }
    const payload = webhookPayload.safeParse(parsed);
    if (!payload.success)
      return json(res, 400, { error: payload.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") });
    const started = await startSession(services, projectId, check.botUserId, payload.data);
    return json(res, 202, started);
  } catch (error) {
    if (error instanceof TRPCError) return json(res, STATUS[error.code] ?? 500, { error: error.message });
    console.error("project webhook:", error);
    return json(res, 500, { error: "The session could not be started." });
  }
}

/** The webhook's account as a tRPC caller: the rights it has in the team, no more. */
async function botCaller(services: Services, botUserId: string) {
  const bot = await findUser(services.db, botUserId);
  if (!bot) throw new TRPCError({ code: "NOT_FOUND", message: "No webhook here." });
  return createCaller({ user: bot, token: null, services, clientIp: "webhook" });
}

/** How a forge comment's session is created and told its request (forge-requests.ts). */
const starter = (services: Services): SessionStarter => ({
  async create(botUserId, input) {
    return (await botCaller(services, botUserId)).tree.startSession(input);
  },
  async send(botUserId, sessionId, text) {
    await (await botCaller(services, botUserId)).session.send({ sessionId, text });
  },
});

/** Starts the session as the webhook's account and sends it the prompt. */
export async function startSession(
  services: Services,
  projectId: string,
  botUserId: string,
  payload: { title?: string; prompt: string; branch?: string; model?: string; base?: string },
) {
  const caller = await botCaller(services, botUserId);
  const title = payload.title ?? payload.prompt.split("\n")[0]!.slice(0, 80);
  const session = payload.branch
    ? await caller.tree.startSession({
        projectId,
        title,
        model: payload.model,
        branch: payload.branch,
        base: payload.base,
      })
    : await caller.session.create({ projectId, title, model: payload.model });
  const { seq } = await caller.session.send({ sessionId: session.id, text: payload.prompt });
  // `seq`: the prompt's place in the session's log; the turn answering it ends past it (session.reply).
  return { sessionId: session.id, title, branch: payload.branch ?? null, seq };
}
