import { branchName } from "@/lib/git-schemas";
import { WEBHOOK_TOLERANCE_SECONDS } from "@/lib/webhooks";
import type { Forges } from "@/lib/git-forges";
import { webAddress } from "@/lib/git-remote-url";
import type { SessionEvent } from "@/lib/session-events";
import type { Db } from "@/server/db/client";
import {
  createForgeRequest,
  findForgeRequest,
  findMembersByForgeLogin,
  findTeamForgeToken,
  finishForgeRequest,
  listWorkingForgeRequests,
  teamForgeLogins,
  type ForgeRequestRow,
} from "@/server/db/repositories/forge-requests";
import { getGitForge, getGitRemote } from "@/server/db/repositories/git-credentials";
import { findProject } from "@/server/db/repositories/projects";
import { lastEventOfType } from "@/server/db/repositories/session-events";
import { listProjectTrees } from "@/server/db/repositories/session-trees";
import { findSession } from "@/server/db/repositories/sessions";
import { findUser } from "@/server/db/repositories/users";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import { GitError } from "@/server/git/errors";
import {
  type ForgeConnections,
  type ForgeTarget,
  postComment,
  pullRequestBranches,
  restForge,
  restRoot,
} from "@/server/git/forge-rest";
import { forgeOf, repoPath, withProjectForge } from "@/server/git/pull-request";
import { requireRemoteUrl } from "@/server/git/remote-url";
import { createForgeIdentities } from "@/server/services/forge-identities";
import { forgeComment, tandemRequest, type ForgeComment, type ForgeDelivery } from "@/server/services/forge-events";
import type { ProjectGit } from "@/server/services/project-git";
import { DELIVERY_MEMORY_MS, type ProjectWebhooks } from "@/server/services/project-webhooks";
import { sessionLink } from "@/server/services/session-notices";
import type { SessionTrees } from "@/server/services/session-trees";
import { FAILED, gitWords } from "@/server/services/forge-words";

// `@tandem <request>` in a comment on a forge's issue or pull request (docs/integrations.md): the
// project's webhook receives the forge's delivery, and when a member of the project's team wrote
// it, a session starts as the webhook's account, on a new branch for an issue or on the pull
// request's own branch. When its first turn ends Tandem commits and pushes, opens a pull request
// that closes the issue, and comments the result. Pushes and comments use the team's token for the
// forge's host, on the server, at push time; the agent's sandbox never holds it.

/** Creates the session and sends it the prompt, as the webhook's account (the HTTP layer, through tRPC). */
export type SessionStarter = {
  create(
    botUserId: string,
    input: { projectId: string; title: string; branch: string; base?: string },
  ): Promise<{ id: string }>;
  send(botUserId: string, sessionId: string, text: string): Promise<void>;
};

export type ForgeAnswer = { status: number; body: Record<string, unknown> };

export function createForgeRequests(deps: {
  db: Db;
  cipher: CredentialCipher;
  webhooks: ProjectWebhooks;
  trees: SessionTrees;
  git: ProjectGit;
  board: { changed(projectId: string, sessionId: string): void };
  /** Resolves once the session's turn is over (its end event comes a moment before). */
  idle: (sessionId: string) => Promise<void>;
  forges: () => Forges;
  /** How the server reaches a forge's API (forge-api.ts's forgeConnections). */
  forgeConnections: (remote: URL) => ForgeConnections | undefined;
  publicUrl: string | undefined;
  log: (line: string) => void;
  /** Writes why the session's work did not reach the forge into its log, which only the project's members read (never throws). */
  tell: (sessionId: string, message: string) => Promise<void>;
}) {
  const { db } = deps;
  const work = new Map<string, Promise<void>>();
  const link = (projectId: string, sessionId: string) =>
    deps.publicUrl ? `${deps.publicUrl.replace(/\/+$/, "")}${sessionLink(projectId, sessionId)}` : null;

  /** The project's remote as a forge Tandem speaks REST to, with the team's token for its host; null: none fits. */
  async function forgeOfProject(project: { id: string; teamId: string }) {
    const stored = await getGitRemote(db, project.id);
    if (!stored) return null;
    const web = new URL(webAddress(requireRemoteUrl(stored, "origin")));
    const chosen = await getGitForge(db, project.id);
    const forge = restForge(forgeOf(web, withProjectForge(deps.forges(), web, chosen)));
    const repo = repoPath(web);
    if (!forge || !repo) return null;
    const credential = await findTeamForgeToken(db, project.teamId, web.host);
    const token = credential ? deps.cipher.open(credential) : null;
    return {
      web,
      repo,
      kind: forge.kind,
      target: token
        ? ({
            kind: forge.kind,
            api: restRoot(forge, web),
            repo,
            token,
            connections: deps.forgeConnections(web),
          } satisfies ForgeTarget)
        : null,
      forges: (remote: URL) => withProjectForge(deps.forges(), remote, chosen),
    };
  }

  const signsInAs = createForgeIdentities();

  /** Where an inline comment sits on the diff, for the prompt. */
  const inline = (at: ForgeComment["at"]) =>
    at ? `, in a comment on \`${at.path}\`${at.line ? ` line ${at.line}` : ""} of its diff` : "";

  const ignored = (why: string): ForgeAnswer => ({ status: 202, body: { ignored: why } });

  async function comment(target: ForgeTarget, on: { kind: "issue" | "pull"; number: number }, text: string) {
    await postComment(target, on, text).catch((error: unknown) =>
      deps.log(`forge request: could not comment on ${target.repo}#${on.number}: ${(error as Error).message}`),
    );
  }

  async function finish(row: ForgeRequestRow, event: Extract<SessionEvent, { type: "turn_finished" }>) {
    const project = await findProject(db, row.projectId);
    const authorId = (await findSession(db, row.sessionId))?.authorId;
    const bot = authorId ? await findUser(db, authorId) : null;
    if (!project || !bot) return;
    const found = await forgeOfProject(project);
    if (!found?.target) return deps.log(`forge request ${row.sessionId}: no team token for the forge any more`);
    const on = { kind: row.kind as "issue" | "pull", number: row.number };
    // A status and the session's link, never the agent's words: the comment may be public, and an
    // agent under prompt injection repeats whatever it read in the workspace. The session, which
    // only the project's members open, holds its answer.
    const where = link(row.projectId, row.sessionId);
    const seeSession = where ? `\n\nThe session: ${where}` : "";
    const failed = Object.hasOwn(FAILED, event.payload.reason) ? FAILED[event.payload.reason] : undefined;
    if (failed) return comment(found.target, on, `Tandem's session stopped without a result: ${failed}.${seeSession}`);
    try {
      const closes = found.kind === "gitlab" ? "Closes" : "Fixes";
      const pushed = await deps.trees.pushAndOpenPullRequest(
        project,
        row.sessionId,
        { id: bot.id, name: bot.name, email: bot.email, mayChooseRemote: false },
        {
          body: `${closes} #${row.number}${seeSession}`,
          forges: found.forges,
          signal: AbortSignal.timeout(10 * 60_000),
          onProgress: () => undefined,
          open: row.kind === "issue",
        },
      );
      deps.board.changed(row.projectId, row.sessionId);
      if (pushed.note) await deps.tell(row.sessionId, `The pull request was not opened: ${pushed.note}`);
      const result =
        row.kind === "issue"
          ? pushed.pullRequest
            ? `Opened ${pushed.pullRequest.url} from \`${pushed.branch}\`.`
            : `Pushed \`${pushed.branch}\`${pushed.note ? ", but the pull request was not opened (the session says why)." : "."}`
          : `Pushed ${pushed.commit.slice(0, 12)} to \`${pushed.branch}\`.`;
      await comment(found.target, on, `${result}${seeSession}`);
    } catch (error) {
      if (error instanceof GitError)
        await deps.tell(row.sessionId, `Tandem could not push this session's work: ${gitWords(error)}`);
      else deps.log(`forge request ${row.sessionId}: ${(error as Error).stack}`);
      const why = error instanceof GitError ? "the session says why" : "an internal error; the server's log says why";
      await comment(found.target, on, `Tandem could not push the session's work (${why}).${seeSession}`);
    }
  }

  /** The pull request's own branch, fetched into the project's repository; or why Tandem cannot work on it. */
  async function pullRequestBranch(
    project: { id: string; teamId: string },
    bot: { id: string; name: string; email: string },
    target: ForgeTarget,
    number: number,
  ): Promise<{ head: string } | string> {
    try {
      const pull = await pullRequestBranches(target, number);
      if (!pull.sameRepository || !branchName.safeParse(pull.head).success)
        return "Tandem works only on pull requests whose branch is in this repository, not a fork's.";
      await deps.git.remote(project, { ...bot, mayChooseRemote: false }, "fetch", {
        signal: AbortSignal.timeout(5 * 60_000),
        onProgress: () => undefined,
      });
      return { head: pull.head };
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      deps.log(
        `forge request on ${target.repo}#${number}: could not read the pull request's branch: ${gitWords(error)}`,
      );
      return "Tandem could not read the pull request's branch.";
    }
  }

  async function start(
    projectId: string,
    botUserId: string,
    forge: ForgeDelivery["forge"],
    note: ForgeComment,
    request: string,
    starter: SessionStarter,
  ): Promise<ForgeAnswer> {
    const project = await findProject(db, projectId);
    const bot = await findUser(db, botUserId);
    if (!project || !bot) return { status: 404, body: { error: "No webhook here." } };
    const found = await forgeOfProject(project);
    if (!found)
      return {
        status: 422,
        body: { error: "This project has no remote on GitHub, GitLab or Gitea for Tandem to answer on." },
      };
    if (found.kind !== forge) return { status: 422, body: { error: `This project's repository is not on ${forge}.` } };
    if (note.repo.toLowerCase() !== found.repo.toLowerCase())
      return { status: 422, body: { error: `This delivery is about ${note.repo}, not this project's repository.` } };
    // The loop guard: what Tandem itself (the team's token's account) or any bot wrote starts nothing.
    if (note.bot || (await teamForgeLogins(db, project.teamId, found.web.host)).includes(note.login.toLowerCase()))
      return ignored("a comment by a bot");
    // Strangers get no answer at all: nothing here tells them the project exists.
    const members = await findMembersByForgeLogin(db, project.teamId, found.web.host, note.login);
    if (members.length === 0) return ignored("not from a member of the project's team");
    if (!found.target)
      return {
        status: 422,
        body: { error: `Store a team token for ${found.web.host}: Tandem comments and pushes with it.` },
      };
    const target = found.target;
    // The team token's own comments (Tandem's reports among them) start nothing, judged by the
    // account the forge says the token signs in as (the login stored with it is only what an admin
    // typed, often a placeholder such as x-access-token).
    if ((await signsInAs(target))?.toLowerCase() === note.login.toLowerCase()) return ignored("a comment by a bot");
    // The login on a member's credential is only what they typed: the forge says whom their token
    // signs in as, so a member cannot name someone else's login and let that person start work,
    // nor, by filing a token under it first, keep that person from starting any.
    let proven = false;
    let unanswered = false;
    for (const { credential } of members) {
      const own = deps.cipher.open(credential);
      const actsAs = own ? await signsInAs({ ...target, token: own }) : null;
      unanswered ||= own !== null && actsAs === undefined;
      proven = actsAs?.toLowerCase() === note.login.toLowerCase();
      if (proven) break;
    }
    // A forge that did not answer loses no comment: the delivery fails, to be sent again.
    if (!proven && unanswered)
      return {
        status: 502,
        body: { error: "The forge did not say whom the member's token signs in as; send it again." },
      };
    if (!proven) return ignored("the member's stored token does not sign in as this login");
    // Taken once, after the identities (kept a while, so a captured delivery sent again under new
    // delivery ids, which GitHub and Gitea do not sign, asks the forge nothing more) and before
    // any work: a comment starts one session.
    if (!(await deps.webhooks.once(projectId, `comment:${note.commentId}`)))
      return { status: 409, body: { error: "This comment started a session already." } };

    const on = { kind: note.on.kind, number: note.on.number };
    let branch: string;
    let base: string | undefined;
    if (note.on.kind === "pull") {
      const pull = await pullRequestBranch(project, bot, target, note.on.number);
      if (typeof pull === "string") {
        await comment(target, on, pull);
        return { status: 422, body: { error: pull } };
      }
      const holder = (await listProjectTrees(db, projectId)).find(
        (t) => t.branch === pull.head && t.state !== "discarded",
      );
      if (holder) {
        const where = link(projectId, holder.sessionId);
        await comment(target, on, `A Tandem session works on \`${pull.head}\` already${where ? `: ${where}` : ""}.`);
        return { status: 409, body: { error: "A session works on this pull request's branch already." } };
      }
      branch = pull.head;
      base = `refs/remotes/origin/${pull.head}`;
    } else {
      branch = `tandem/issue-${note.on.number}-${note.commentId.replace(/^\w+:/, "")}`;
    }
    const what = note.on.kind === "issue" ? "Issue" : "Pull request";
    const title = `${what} #${note.on.number}: ${note.on.title}`.slice(0, 200);
    let sessionId: string;
    try {
      sessionId = (await starter.create(botUserId, { projectId, title, branch, base })).id;
    } catch (error) {
      // Refusals written for people (a branch that exists, no model) are told in fixed words: git's
      // last lines ride along in some. Anything else is the server's own failure.
      const code = (error as { code?: unknown }).code;
      if (!(error instanceof Error) || typeof code !== "string" || code === "INTERNAL_SERVER_ERROR") throw error;
      deps.log(`forge request on ${target.repo}#${on.number}: no session: ${error.message}`);
      const why = "Tandem could not start a session for this request.";
      await comment(target, on, why);
      return { status: 422, body: { error: why } };
    }
    await createForgeRequest(db, {
      sessionId,
      projectId,
      forge: found.kind,
      repo: found.repo,
      kind: note.on.kind,
      number: note.on.number,
      branch,
    });
    const where = link(projectId, sessionId);
    await comment(target, on, `Working on it${where ? `: ${where}` : ""} (on \`${branch}\`, asked by @${note.login}).`);
    const ending =
      note.on.kind === "issue"
        ? "When your turn ends, Tandem commits your changes on this branch, pushes it and opens a pull request that closes the issue."
        : "When your turn ends, Tandem commits your changes and pushes them to the pull request's branch.";
    await starter.send(
      botUserId,
      sessionId,
      `@${note.login} asked on ${what.toLowerCase()} #${note.on.number} ("${note.on.title}") of ${found.repo}${inline(note.at)}:\n\n${request}\n\n${ending}`,
    );
    return { status: 202, body: { sessionId, branch } };
  }

  return {
    /** Where the project's `@tandem` comments come from, for its settings: null when its remote is on no such forge. */
    async describe(project: { id: string; teamId: string }) {
      const found = await forgeOfProject(project).catch(() => null);
      return found && { kind: found.kind, repo: found.repo, host: found.web.host, teamToken: found.target !== null };
    },

    /** A forge's delivery to project `projectId`'s webhook: checked, then maybe a session. */
    async receive(
      projectId: string,
      delivery: ForgeDelivery,
      body: Buffer,
      starter: SessionStarter,
    ): Promise<ForgeAnswer> {
      const check = await deps.webhooks.verifyForge(projectId, delivery, body);
      if (!check.ok) return { status: check.status, body: { error: check.message } };
      let json: unknown;
      try {
        json = JSON.parse(body.toString("utf8"));
      } catch {
        return { status: 400, body: { error: "The body is not JSON." } };
      }
      const note = forgeComment(delivery, json);
      if (!note) return ignored("not a new comment on an issue or a pull request");
      const request = tandemRequest(note.body);
      if (!request) return ignored("no @tandem request");
      // A comment's own date bounds a replay: past the time deliveries are remembered it starts nothing,
      // nor does one dated further ahead of this clock than the tolerance (it could outlive its record).
      const age = Date.now() - note.createdAt.getTime();
      if (age > DELIVERY_MEMORY_MS || age < -WEBHOOK_TOLERANCE_SECONDS * 1000)
        return {
          status: 409,
          body: { error: "This comment is too old, or dated ahead of this server's clock, to start work." },
        };
      const answer = await start(projectId, check.botUserId, delivery.forge, note, request, starter);
      if (answer.status >= 500) await deps.webhooks.forgetForge(projectId, delivery);
      return answer;
    },

    /** Called with each committed event of any session: a forge request's first turn end reports back once. */
    observe(sessionId: string, event: SessionEvent) {
      if (event.type !== "turn_finished") return;
      const next = (work.get(sessionId) ?? Promise.resolve())
        .then(async () => {
          const row = await findForgeRequest(db, sessionId);
          if (row?.state !== "working" || !(await finishForgeRequest(db, sessionId))) return;
          await deps.idle(sessionId);
          await finish(row, event);
        })
        .catch((error: unknown) => deps.log(`forge request ${sessionId}: ${(error as Error).message}`));
      work.set(sessionId, next);
      void next.then(() => work.get(sessionId) === next && work.delete(sessionId));
    },

    /**
     * At start-up: reports the requests whose session's turn ended but whose report never went out
     * (the server stopped in between).
     */
    async resume() {
      for (const row of await listWorkingForgeRequests(db)) {
        const session = await findSession(db, row.sessionId);
        const ended =
          session && session.status !== "running" && (await lastEventOfType(db, row.sessionId, "turn_finished"));
        if (ended) this.observe(row.sessionId, ended);
      }
    },

    /** Waits for the reports being made (tests, shutdown). */
    settled: () => Promise.all(work.values()).then(() => undefined),
  };
}

export type ForgeRequests = ReturnType<typeof createForgeRequests>;
