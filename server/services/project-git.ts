import type { Db } from "@/server/db/client";
import { listSessions } from "@/server/db/repositories/sessions";
import { recordAudit } from "@/server/db/repositories/audit-events";
import {
  addKnownHostKeys,
  getGitRemote,
  getPullMode,
  listKnownHostKeys,
  setGitRemote,
  usableGitCredentials,
} from "@/server/db/repositories/git-credentials";
import type { CheckpointStores } from "@/server/agent/turn-checkpoint";
import { agentChangedPaths } from "@/server/services/session-changes";
import type { ProjectFiles } from "@/server/services/project-files";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import type { GitSecret } from "@/server/git/credential-socket";
import { GitError } from "@/server/git/errors";
import { createGitOperations } from "@/server/git/operations";
import {
  cloneRepository,
  fetchRemote,
  pullRemote,
  pushBranch,
  type HostKeys,
  type SshCredential,
} from "@/server/git/remote";
import { requireRemoteUrl } from "@/server/git/remote-url";
import { isSshRemote, parseRemoteUrl, webAddress } from "@/lib/git-remote-url";
import { decodeSshKeySecret } from "@/server/git/ssh-key";
import { gitRepository, type Author } from "@/server/git/repository";
import type { GitSandbox } from "@/server/git/run";
import type { GitProgress } from "@/lib/git-schemas";
import type { Forges } from "@/lib/git-forges";
import type { ForgeConnections } from "@/server/git/forge-rest";
import { openForgePullRequest } from "@/server/git/pull-request";

export type GitDeps = {
  db: Db;
  files: ProjectFiles;
  sandbox: GitSandbox;
  cipher: CredentialCipher;
  checkpoints: CheckpointStores;
  publicUrl: string | undefined;
  /** Adds a host to a project's network allow-list (the person creating a project from a URL chose that host). */
  allowHost?(projectId: string, host: string): Promise<unknown>;
  /** Whether tokens may go to plain http:// remotes (the server admin's TANDEM_GIT_ALLOW_HTTP), read at each use. */
  allowHttp(): boolean;
  /** How the server reaches the forge API of a remote on a host its admin did not configure (forge-api.ts). */
  forgeConnections(remote: URL): ForgeConnections | undefined;
};
export type GitProject = { id: string; teamId: string };
export type GitPerson = { id: string; name: string; email: string };
/** Whether the person may choose where the project's remote is (its team's owners and admins). */
export type RemoteChoice = { mayChooseRemote: boolean };

/** Sessions this many back, at most, are asked whether they changed what is being committed. */
const CO_AUTHOR_SESSIONS = 20;

/** A remote URL as people may see it: a password written into origin's URL (by anyone) is never shown. */
function readable(raw: string): string {
  const url = parseRemoteUrl(raw);
  if (!url?.password) return raw;
  url.password = "***";
  return url.href;
}

// Git for projects: local operations one at a time per workspace, remote ones with the caller's
// credential for the remote's host, long ones reported through `operations`.
export function createProjectGit(deps: GitDeps) {
  const operations = createGitOperations();
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(projectId: string, task: () => Promise<T>): Promise<T> => {
    const run = (queues.get(projectId) ?? Promise.resolve()).then(task);
    const tail = run.catch(() => undefined);
    queues.set(projectId, tail);
    void tail.then(() => queues.get(projectId) === tail && queues.delete(projectId));
    return run;
  };
  const repo = (projectId: string, treeId: string | null = null) =>
    gitRepository(deps.sandbox, deps.files.treePath({ projectId, treeId }));
  const author = (person: GitPerson): Author => ({ name: person.name, email: person.email });

  /**
   * The caller's (or their team's) credential for `url`'s host: a chosen one, else the first that
   * fits. An ssh remote takes an ssh key, an https one a token (`want` overrides: pull requests
   * go through the forge's API with a token whatever the remote).
   */
  async function secretFor(
    person: GitPerson,
    teamId: string,
    url: URL,
    credentialId?: string,
    want: "token" | "ssh-key" = isSshRemote(url) ? "ssh-key" : "token",
  ): Promise<GitSecret | SshCredential | null> {
    const host = want === "token" && isSshRemote(url) ? url.hostname : url.host;
    const usable = await usableGitCredentials(deps.db, person.id, teamId);
    const chosen = credentialId
      ? usable.find((c) => c.id === credentialId)
      : usable.find((c) => c.host === host && c.kind === want);
    if (credentialId && !chosen) throw new GitError("NOT_FOUND", "No such credential, or you may not use it.");
    if (!chosen) return null;
    if (url.protocol === "http:" && !deps.allowHttp()) {
      throw new GitError(
        "BAD_INPUT",
        `${url.origin} is a plain http:// remote: your token would travel in clear text, so Tandem does not send it. Use the repository's https:// URL, or ask the server's admin to allow http remotes (TANDEM_GIT_ALLOW_HTTP=true).`,
      );
    }
    if (chosen.host !== host)
      throw new GitError("BAD_INPUT", `The credential '${chosen.name}' is for ${chosen.host}, not ${host}.`);
    if (chosen.kind !== want)
      throw new GitError(
        "BAD_INPUT",
        want === "ssh-key"
          ? `${url.href} is an ssh URL: choose an ssh key, not the token '${chosen.name}'.`
          : `The credential '${chosen.name}' is an ssh key: an https URL needs a token.`,
      );
    const secret = deps.cipher.open(chosen);
    if (secret === null)
      throw new GitError(
        "AUTH_FAILED",
        `The credential '${chosen.name}' cannot be opened with the server's current secret. Store it again.`,
      );
    return chosen.kind === "ssh-key"
      ? { sshKey: decodeSshKeySecret(secret), username: chosen.username }
      : { username: chosen.username, password: secret };
  }

  /** The ssh host keys the project accepted on first use (trust on first use; a changed key is refused). */
  const hostKeys = (projectId: string): HostKeys => ({
    known: (host) => listKnownHostKeys(deps.db, projectId, host),
    accept: (keys) => addKnownHostKeys(deps.db, projectId, keys),
  });

  /**
   * Where fetch, pull, push and pull requests go: the remote Tandem stored for the project (the
   * clone URL, or one a project admin set), never what the repository's config says now, which any
   * writer can change (origin, pushurl, insteadOf). A project without one (a repository made or
   * imported outside Tandem) records origin's URL, as written in its config, the first time a
   * project admin uses it; until then other people are told to ask an admin.
   */
  async function projectRemote(projectId: string, choice: RemoteChoice): Promise<{ raw: string; url: URL }> {
    const stored = await getGitRemote(deps.db, projectId);
    if (stored) return { raw: stored, url: requireRemoteUrl(stored, "origin") };
    const origin = await repo(projectId).originUrl();
    if (!origin)
      throw new GitError(
        "NOT_FOUND",
        "This project has no remote: a project admin sets one in Source Control (or with git remote add origin <url> in the terminal, then Fetch).",
      );
    if (!choice.mayChooseRemote) {
      throw new GitError(
        "NOT_FOUND",
        `Tandem has not recorded this project's remote yet: a project admin confirms it by setting the remote or by fetching once (the repository's origin is ${readable(origin)}).`,
      );
    }
    const url = requireRemoteUrl(origin, "origin");
    if (url.password)
      throw new GitError(
        "BAD_INPUT",
        `origin's URL (${readable(origin)}) carries a password: remove it from the URL and store the token in your git credentials instead.`,
      );
    await setGitRemote(deps.db, projectId, origin);
    return { raw: origin, url };
  }

  /**
   * `Co-authored-by` trailers for the agent sessions whose turns changed a staged file since HEAD,
   * each with its session's link on the server's public address: the configured one, else the
   * page's origin as the committer's browser saw it (no link when neither is known).
   */
  async function coAuthors(
    project: GitProject,
    treeId: string | null,
    staged: string[],
    origin: string | undefined,
  ): Promise<string[]> {
    const base = deps.publicUrl?.replace(/\/+$/, "") ?? origin;
    const since = await repo(project.id, treeId).headDate();
    const sessions = (await listSessions(deps.db, project.id, { limit: CO_AUTHOR_SESSIONS })).filter(
      // Only the sessions that work in this tree changed it: the others' work comes in by merge.
      (s) => s.treeId === treeId && (!since || s.updatedAt > since),
    );
    const trailers: string[] = [];
    for (const session of sessions) {
      const paths = await agentChangedPaths(deps, session);
      if (!staged.some((p) => paths.has(p))) continue;
      trailers.push(`Co-authored-by: Tandem agent (${session.model}) <agent+${session.id}@tandem.invalid>`);
      if (base) trailers.push(`Tandem-Session: ${base}/p/${project.id}?session=${session.id}`);
    }
    return trailers;
  }

  return {
    operations,
    repo,

    status: (projectId: string, treeId: string | null = null) =>
      serial(projectId, () => repo(projectId, treeId).status()),

    /** `origin`: the committer's page origin, for the session trailers' links (see coAuthors). */
    commit(
      project: GitProject,
      person: GitPerson,
      input: { message: string; amend: boolean },
      origin?: string,
      treeId: string | null = null,
    ) {
      return serial(project.id, async () => {
        const status = await repo(project.id, treeId).status();
        // A merge is committed even when its result is HEAD's tree (every conflict resolved to this side).
        if (!input.amend && status.staged.length === 0 && status.operation !== "merge")
          throw new GitError("BAD_INPUT", "Nothing is staged: stage the changes to commit first.");
        const trailers = await coAuthors(
          project,
          treeId,
          status.staged.map((f) => f.path),
          origin,
        );
        const message = trailers.length ? `${input.message.trimEnd()}\n\n${trailers.join("\n")}\n` : input.message;
        return repo(project.id, treeId).commit({ message, author: author(person), amend: input.amend });
      });
    },

    /** Clones into the (empty) workspace of a project being created. */
    async clone(
      project: GitProject,
      person: GitPerson,
      input: { url: string; branch?: string; depth?: number; credentialId?: string },
      op: { signal: AbortSignal; onProgress: (p: GitProgress) => void },
    ) {
      const remote = parseRemoteUrl(input.url);
      if (!remote) throw new GitError("BAD_INPUT", "Give an https:// or ssh URL of the repository.");
      const secret = await secretFor(person, project.teamId, remote, input.credentialId);
      const root = (await deps.files.open(project.id)).root;
      await deps.allowHost?.(project.id, remote.hostname);
      await cloneRepository(deps.sandbox, {
        projectId: project.id,
        root,
        remote,
        url: input.url.trim(),
        secret,
        hostKeys: hostKeys(project.id),
        branch: input.branch,
        depth: input.depth,
        signal: op.signal,
        onProgress: op.onProgress,
      });
      await setGitRemote(deps.db, project.id, input.url.trim());
    },

    /** The remote Tandem stored (null: none yet) and what the repository's origin says now, for people to compare. */
    async remoteInfo(projectId: string): Promise<{ url: string | null; origin: string | null }> {
      const r = repo(projectId);
      const origin = (await r.isRepository()) ? await r.originUrl() : null;
      return { url: await getGitRemote(deps.db, projectId), origin: origin && readable(origin) };
    },

    /** A project admin sets where fetch, pull and push go; the repository's origin is pointed there too, for the terminal. */
    setRemote(projectId: string, raw: string) {
      return serial(projectId, async () => {
        const url = raw.trim();
        requireRemoteUrl(url, "origin");
        if (await repo(projectId).isRepository()) await repo(projectId).setOrigin(url);
        await setGitRemote(deps.db, projectId, url);
      });
    },

    remote(
      project: GitProject,
      person: GitPerson & RemoteChoice,
      action: "fetch" | "pull" | "push",
      /** `branch`: what a push sends (a session's branch, which lives in the same repository); default the main tree's. */
      op: { signal: AbortSignal; onProgress: (p: GitProgress) => void; branch?: string },
    ) {
      return serial(project.id, async () => {
        const root = deps.files.pathOf(project.id);
        await repo(project.id).requireRepository();
        const { raw, url: remote } = await projectRemote(project.id, person);
        const secret = await secretFor(person, project.teamId, remote);
        const base = {
          projectId: project.id,
          root,
          remote,
          url: raw,
          secret,
          hostKeys: hostKeys(project.id),
          signal: op.signal,
          onProgress: op.onProgress,
        };
        if (action === "fetch") await fetchRemote(deps.sandbox, base);
        else if (action === "pull")
          await pullRemote(deps.sandbox, {
            ...base,
            mode: await getPullMode(deps.db, project.id),
            author: author(person),
          });
        else {
          const branch = op.branch ?? (await repo(project.id).status()).branch;
          if (!branch) throw new GitError("BAD_INPUT", "HEAD is detached: switch to a branch to push.");
          await pushBranch(deps.sandbox, { ...base, branch });
          await recordAudit(deps.db, "git.pushed", {
            projectId: project.id,
            teamId: project.teamId,
            target: branch,
            detail: { remote: webAddress(remote) },
          });
        }
        return { remote: webAddress(remote) };
      });
    },

    /** Opens a pull request for the current branch through the forge's API, with the caller's token for the remote's host. */
    openPullRequest(
      project: GitProject,
      person: GitPerson & RemoteChoice,
      input: { title: string; body: string; base: string; head?: string; forges: (remote: URL) => Forges },
    ) {
      return serial(project.id, async () => {
        const { url: remote } = await projectRemote(project.id, person);
        const secret = await secretFor(person, project.teamId, remote, undefined, "token");
        if (!secret || !("password" in secret))
          throw new GitError(
            "AUTH_FAILED",
            `Store a token for ${remote.hostname} to open pull requests from here, or use the link.`,
          );
        const branch = input.head ?? (await repo(project.id).status()).branch;
        if (!branch) throw new GitError("BAD_INPUT", "HEAD is detached: switch to a branch first.");
        if (branch === input.base)
          throw new GitError(
            "BAD_INPUT",
            `You are on ${input.base}: push a branch of your own to open a pull request into it.`,
          );
        const web = webAddress(remote);
        const opened = await openForgePullRequest({
          remote: web,
          forges: input.forges(new URL(web)),
          token: secret.password,
          head: branch,
          base: input.base,
          title: input.title,
          body: input.body,
          connections: deps.forgeConnections(new URL(web)),
        });
        return { ...opened, head: branch, base: input.base };
      });
    },

    serial,
  };
}

export type ProjectGit = ReturnType<typeof createProjectGit>;
