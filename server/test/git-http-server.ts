import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

// A real git server for tests: git's own `git http-backend` (smart HTTP, push enabled) run as a CGI
// program behind a small Node HTTP server with basic auth, on loopback. As on GitHub, a personal
// access token is the password and any username goes with it.
export type GitHttpServer = {
  url: string;
  /** The folder holding the bare repositories (`<name>.git`). */
  root: string;
  /** A bare repository `<name>.git`, with `files` committed on `main` by "Upstream Author". */
  createRepository(name: string, files?: Record<string, string>): string;
  /** Runs git (on the server's side, outside any sandbox: this is the remote) in a repository. */
  git(repo: string, args: string[], cwd?: string): string;
  /** Commits `files` on `main` as "Elsewhere Person", as a teammate pushing from their machine would. */
  commitElsewhere(repo: string, files: Record<string, string>, message: string): void;
  /** Lets anyone read (clone, fetch) repository `<name>.git` without logging in, as a public repository; pushing still needs a token. */
  makePublic(repo: string): void;
  /**
   * Answers every clone, fetch and push of repository `<name>.git` with git's ERR packet carrying
   * `message`, as a hostile remote can (git prints `fatal: remote error: <message>`); null: serves it again.
   */
  sayError(repo: string, message: string | null): void;
  /** Requests seen: method, path and the user that authenticated (null when anonymous). */
  requests: Array<{ method: string; path: string; user: string | null }>;
  close(): Promise<void>;
};

// A fixed environment: the upstream server is its own program, not a child of the server's configuration.
const GIT_ENV = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  LANG: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Upstream Author",
  GIT_AUTHOR_EMAIL: "upstream@example.com",
  GIT_COMMITTER_NAME: "Upstream Author",
  GIT_COMMITTER_EMAIL: "upstream@example.com",
} as Record<string, string> as NodeJS.ProcessEnv;

/** `host`: the loopback address to listen on (127.0.0.1 unless a test needs another, as an internal host's). */
export async function startGitHttpServer(options: {
  tokens: Record<string, string>;
  host?: string;
}): Promise<GitHttpServer> {
  const root = mkdtempSync(path.join(tmpdir(), "tandem-git-server-"));
  const requests: GitHttpServer["requests"] = [];
  const publicRepos = new Set<string>();
  const errors = new Map<string, string>();
  const git = (repo: string, args: string[], cwd?: string) =>
    execFileSync("git", args, { cwd: cwd ?? path.join(root, `${repo}.git`), env: GIT_ENV, encoding: "utf8" });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
    const password = auth ? Buffer.from(auth[1]!, "base64").toString("utf8").split(/:(.*)/s)[1] : undefined;
    const authenticated = password !== undefined ? (options.tokens[password] ?? null) : null;
    requests.push({ method: req.method ?? "GET", path: url.pathname, user: authenticated });
    const reading = url.searchParams.get("service") === "git-upload-pack" || url.pathname.endsWith("/git-upload-pack");
    const publicRead = reading && [...publicRepos].some((repo) => url.pathname.startsWith(`/${repo}.git/`));
    if (!authenticated && !publicRead) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end("Authentication required\n");
      return;
    }
    const said = [...errors].find(([repo]) => url.pathname === `/${repo}.git/info/refs`)?.[1];
    const service = url.searchParams.get("service") ?? "";
    if (said !== undefined) {
      const pkt = (line: string) => (Buffer.byteLength(line) + 4).toString(16).padStart(4, "0") + line;
      res.writeHead(200, { "content-type": `application/x-${service}-advertisement`, "cache-control": "no-cache" });
      res.end(`${pkt(`# service=${service}\n`)}0000${pkt(`ERR ${said}\n`)}`);
      return;
    }
    const cgi = spawn("git", ["http-backend"], {
      env: {
        ...GIT_ENV,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        ...(authenticated ? { REMOTE_USER: authenticated } : {}),
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-length"] ? { CONTENT_LENGTH: req.headers["content-length"] } : {}),
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(cgi.stdin);
    // CGI answers with headers, a blank line, then the body.
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const [name, ...value] = line.split(":");
        if (!name) continue;
        if (name.toLowerCase() === "status") status = Number.parseInt(value.join(":").trim(), 10);
        else res.setHeader(name, value.join(":").trim());
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on("close", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? "127.0.0.1", resolve));
  const url = `http://${options.host ?? "127.0.0.1"}:${(server.address() as AddressInfo).port}`;

  return {
    url,
    root,
    requests,
    git,
    createRepository(name, files = { "README.md": `# ${name}\n` }) {
      const bare = path.join(root, `${name}.git`);
      execFileSync("git", ["init", "--quiet", "--bare", "--initial-branch=main", bare], { env: GIT_ENV });
      git(name, ["config", "http.receivepack", "true"]);
      const work = mkdtempSync(path.join(tmpdir(), "tandem-git-seed-"));
      try {
        execFileSync("git", ["init", "--quiet", "--initial-branch=main"], { cwd: work, env: GIT_ENV });
        for (const [file, content] of Object.entries(files)) {
          const target = path.join(work, file);
          mkdirSync(path.dirname(target), { recursive: true });
          writeFileSync(target, content);
        }
        execFileSync("git", ["add", "-A"], { cwd: work, env: GIT_ENV });
        execFileSync("git", ["commit", "--quiet", "-m", "Initial commit"], { cwd: work, env: GIT_ENV });
        execFileSync("git", ["push", "--quiet", bare, "main"], { cwd: work, env: GIT_ENV });
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
      return `${url}/${name}.git`;
    },
    makePublic(repo) {
      publicRepos.add(repo);
    },
    sayError(repo, message) {
      if (message === null) errors.delete(repo);
      else errors.set(repo, message);
    },
    commitElsewhere(repo, files, message) {
      const work = mkdtempSync(path.join(tmpdir(), "tandem-git-elsewhere-"));
      const env = { ...GIT_ENV, GIT_AUTHOR_NAME: "Elsewhere Person", GIT_AUTHOR_EMAIL: "elsewhere@example.com" };
      try {
        execFileSync("git", ["clone", "--quiet", path.join(root, `${repo}.git`), "."], { cwd: work, env });
        for (const [file, content] of Object.entries(files)) {
          mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
          writeFileSync(path.join(work, file), content);
        }
        execFileSync("git", ["commit", "--quiet", "-am", message], { cwd: work, env });
        execFileSync("git", ["push", "--quiet", "origin", "main"], { cwd: work, env });
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
