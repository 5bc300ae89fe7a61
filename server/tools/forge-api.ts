import { z } from "zod";
import { defineTool } from "./define-tool";
import { ToolFailure, ok } from "./result";

// github_api and gitlab_api: the forge's REST API with the token the person the session works for
// stored for that forge (Settings → Git credentials), offered only when they have one
// (server/services/forge-api.ts binds it at the turn's start). Reads (GET) follow the policy;
// anything else acts on the forge as that person and asks whatever the mode.

export type ForgeKind = "github" | "gitlab";
export type ForgeRequest = {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string>;
  body?: unknown;
};
export type ForgeAnswer = { status: number; body: string; host: string };
/** One request to the API of the forge the person's token is for. */
export type ForgeCall = (request: ForgeRequest, signal: AbortSignal) => Promise<ForgeAnswer>;

const LABEL: Record<ForgeKind, string> = { github: "GitHub", gitlab: "GitLab" };
const EXAMPLE: Record<ForgeKind, string> = {
  github: "/repos/{owner}/{repo}/issues",
  gitlab: "/projects/{url-encoded path}/merge_requests",
};

export function forgeApiTool(kind: ForgeKind, call: ForgeCall) {
  return defineTool({
    name: `${kind}_api`,
    kind: "fetch",
    description: `Calls the ${LABEL[kind]} REST API with the token of the person you work for: path relative to the API root (e.g. ${EXAMPLE[kind]}), optional query and JSON body. GET reads; POST, PATCH, PUT and DELETE act as that person and ask first.`,
    input: z.object({
      method: z.enum(["GET", "POST", "PATCH", "PUT", "DELETE"]).default("GET"),
      path: z
        .string()
        .regex(/^\/(?!\/)[^\s?#]*$/, "a path from the API root, starting with /, without ? or #")
        .refine((p) => !p.split("/").includes(".."), "no .. segments")
        .describe(`e.g. ${EXAMPLE[kind]}`),
      query: z.record(z.string(), z.string()).optional(),
      body: z.unknown().optional().describe("JSON body (POST, PATCH, PUT)."),
    }),
    onDemand: "always",
    needsApproval: (i) => (i.method === "GET" ? false : "always"),
    describe: (i) => `${LABEL[kind]} ${i.method} ${i.path}`,
    async execute(i, ctx) {
      const answer = await call({ method: i.method, path: i.path, query: i.query, body: i.body }, ctx.signal);
      const text = `${i.method} ${i.path} → HTTP ${answer.status}\n${answer.body}`;
      if (answer.status >= 400)
        throw new ToolFailure(
          answer.status === 401 || answer.status === 403
            ? "DENIED"
            : answer.status === 404
              ? "NOT_FOUND"
              : "FETCH_FAILED",
          `${LABEL[kind]} (${answer.host}) answered HTTP ${answer.status} to ${i.method} ${i.path}: ${answer.body.slice(0, 500)}`,
        );
      return ok(text, { kind: "text", text }, { status: answer.status, host: answer.host });
    },
  });
}
