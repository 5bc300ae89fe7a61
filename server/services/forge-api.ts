import { request } from "undici";
import type { Forge, Forges } from "@/lib/git-forges";
import type { Db } from "@/server/db/client";
import { usableGitCredentials } from "@/server/db/repositories/git-credentials";
import { findProject } from "@/server/db/repositories/projects";
import { isTeamAccount } from "@/server/db/repositories/users";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import type { ForgeConnections } from "@/server/git/forge-rest";
import { forgeOf } from "@/server/git/pull-request";
import type { FetchPolicy } from "@/server/tools/define-tool";
import type { ForgeCall, ForgeKind } from "@/server/tools/forge-api";
import { blockedAddressOf, guardedDispatcher } from "@/server/tools/guarded-fetch";
import { refusedByProject } from "@/server/tools/project-network";
import { ToolFailure } from "@/server/tools/result";

// The forge APIs a person can reach with the tokens they stored (Settings → Git credentials, as
// Source Control uses them): for each of GitHub and GitLab, their first token whose host is that
// kind of forge, bound to that one API. A forge the admin configured (TANDEM_GIT_FORGES) is
// reached as configured; any other host goes through the project's network policy and the
// address check, as web_fetch does, so a token stored for an internal address does not turn the
// server into a way in. A team's own account (a webhook's, an API token's) gets none.

const MAX_BODY = 2 * 1024 * 1024;

export function createForgeApi(deps: { db: Db; cipher: CredentialCipher; forges: Forges; fetchPolicy: FetchPolicy }) {
  return {
    /** The forge calls open to `personId` in this project, by kind: none without a stored token. */
    async forPerson(personId: string, projectId: string): Promise<Partial<Record<ForgeKind, ForgeCall>>> {
      const project = await findProject(deps.db, projectId);
      // A team's own account (a webhook's, whose sessions forge comments start) has no tokens of its
      // own, and unattended sessions do not get to act with the team's shared ones.
      if (!project || (await isTeamAccount(deps.db, personId))) return {};
      const tokens = (await usableGitCredentials(deps.db, personId, project.teamId)).filter((c) => c.kind === "token");
      const calls: Partial<Record<ForgeKind, ForgeCall>> = {};
      for (const credential of tokens) {
        const host = new URL(`https://${credential.host}`);
        const forge = forgeOf(host, deps.forges);
        if (!forge || (forge.kind !== "github" && forge.kind !== "gitlab") || calls[forge.kind]) continue;
        const configured = !!(deps.forges[host.host] ?? deps.forges[host.hostname]);
        const base = apiBase(forge, host);
        calls[forge.kind] = async (req, signal) => {
          const token = deps.cipher.open(credential);
          if (token === null)
            throw new ToolFailure(
              "UNAVAILABLE",
              `The token '${credential.name}' cannot be opened with the server's current secret: store it again in Settings → Git credentials.`,
            );
          if (!configured) {
            const refused = refusedByProject(
              await (deps.fetchPolicy.projectNetwork?.(projectId) ??
                Promise.resolve({ policy: "open" as const, allowHosts: [] })),
              base.hostname,
              `${forge.kind}_api`,
            );
            if (refused) throw refused;
          }
          const url = new URL(`${base.pathname.replace(/\/$/, "")}${req.path}`, base);
          for (const [key, value] of Object.entries(req.query ?? {})) url.searchParams.set(key, value);
          const response = await request(url, {
            method: req.method,
            headers: {
              authorization: `Bearer ${token}`,
              accept: forge.kind === "github" ? "application/vnd.github+json" : "application/json",
              "user-agent": "Tandem",
              ...(req.body !== undefined ? { "content-type": "application/json" } : {}),
            },
            body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
            signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
            ...(configured
              ? {}
              : { dispatcher: guardedDispatcher(deps.fetchPolicy.allowHosts, deps.fetchPolicy.resolve) }),
          }).catch((error: unknown) => {
            const blocked = blockedAddressOf(error);
            if (blocked)
              throw new ToolFailure(
                "BLOCKED_ADDRESS",
                `${blocked.host} resolves to ${blocked.address}, a ${blocked.why} address, and is not a forge the server's admin configured (TANDEM_GIT_FORGES).`,
              );
            throw new ToolFailure("FETCH_FAILED", `${base.host} could not be reached: ${(error as Error).message}`);
          });
          const chunks: Buffer[] = [];
          let size = 0;
          for await (const chunk of response.body) {
            size += (chunk as Buffer).length;
            if (size > MAX_BODY) {
              response.body.destroy();
              throw new ToolFailure(
                "TOO_LARGE",
                "The answer is over 2 MB: ask for fewer items (per_page) or one page.",
              );
            }
            chunks.push(chunk as Buffer);
          }
          return { status: response.statusCode, body: Buffer.concat(chunks).toString("utf8"), host: base.host };
        };
      }
      return calls;
    },
  };
}

export type ForgeApi = ReturnType<typeof createForgeApi>;

/**
 * How the server reaches the REST API of a forge on `remote`'s host for Tandem's own calls
 * (server/git/forge-rest.ts: pull requests, forge comments): as configured for a forge the server's
 * admin named (TANDEM_GIT_FORGES: undefined), any other host only at addresses outside the server's
 * own networks, as github_api above. A project admin chooses the remote; a token stored for an
 * internal address must not turn the server into a way in.
 */
export function forgeConnections(configured: Forges, remote: URL): ForgeConnections | undefined {
  if (configured[remote.host] ?? configured[remote.hostname]) return undefined;
  return {
    dispatcher: guardedDispatcher([]),
    refusal(error) {
      const blocked = blockedAddressOf(error);
      return (
        blocked &&
        `${blocked.host} resolves to ${blocked.address}, a ${blocked.why} address, and is not a forge the server's admin configured (TANDEM_GIT_FORGES).`
      );
    },
  };
}

/** The REST root: the configured one, else GitHub's public API or GitHub Enterprise's /api/v3, GitLab's /api/v4. */
function apiBase(forge: Forge, host: URL): URL {
  if (forge.api) return new URL(forge.api.endsWith("/") ? forge.api : `${forge.api}/`);
  if (forge.kind === "github")
    return new URL(host.hostname === "github.com" ? "https://api.github.com/" : `${host.origin}/api/v3/`);
  return new URL(`${host.origin}/api/v4/`);
}
