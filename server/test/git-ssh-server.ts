import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import ssh2, { type ParsedKey } from "ssh2";

const { Server, utils } = ssh2;

// A real git server over ssh for tests: ssh2's Server on loopback with public-key authentication,
// running git's own `git upload-pack` / `git receive-pack` on bare repositories, as GitHub's ssh
// endpoint does for `git@github.com:owner/repo.git`.
export type GitSshServer = {
  port: number;
  /** The server's host key line (`type base64`), as a client's known_hosts would hold it. */
  hostKey: { keyType: string; key: string };
  /** A bare repository `<name>.git` at the root, with `files` committed on `main`. */
  createRepository(name: string, files?: Record<string, string>): void;
  /** Runs git on the server's side (outside any sandbox: this is the remote) in a repository. */
  git(repo: string, args: string[]): string;
  /** Every public-key login attempt with a signature: the login name and whether it was accepted. */
  /** Each signed login: who, whether it was accepted, and which authorized public key it used (null: none). */
  logins: Array<{ user: string; accepted: boolean; key: string | null }>;
  close(): Promise<void>;
};

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

/**
 * A new key pair in OpenSSH format (the private key optionally encrypted with `passphrase`).
 * ssh2's generator writes an unreadable ed25519 key about once in 400 (neither ssh2's parser nor
 * ssh-keygen reads it; keys made by ssh-keygen always parse), so a key is made again until it
 * reads back: a test needs a valid key, and a bad one failed CI once.
 */
export function generateSshKey(
  type: "ed25519" | "rsa",
  passphrase?: string,
): { privateKey: string; publicKey: string } {
  const encryption = { cipher: "aes256-ctr", rounds: 16 };
  for (;;) {
    const pair =
      type === "rsa"
        ? utils.generateKeyPairSync("rsa", passphrase ? { bits: 2048, passphrase, ...encryption } : { bits: 2048 })
        : passphrase
          ? utils.generateKeyPairSync("ed25519", { passphrase, ...encryption })
          : utils.generateKeyPairSync("ed25519");
    if (!(utils.parseKey(pair.private, passphrase) instanceof Error))
      return { privateKey: pair.private, publicKey: pair.public };
  }
}

export async function startGitSshServer(options: { authorizedKeys: string[]; user?: string }): Promise<GitSshServer> {
  const root = mkdtempSync(path.join(tmpdir(), "tandem-git-ssh-server-"));
  const login = options.user ?? "git";
  const hostPair = generateSshKey("ed25519");
  const authorized = options.authorizedKeys.map((k) => utils.parseKey(k) as ParsedKey);
  const logins: GitSshServer["logins"] = [];
  const git = (repo: string, args: string[]) =>
    execFileSync("git", args, { cwd: path.join(root, `${repo}.git`), env: GIT_ENV, encoding: "utf8" });

  const server = new Server({ hostKeys: [hostPair.privateKey] }, (client) => {
    client.on("authentication", (ctx) => {
      if (ctx.method !== "publickey" || ctx.username !== login) return ctx.reject(["publickey"]);
      const match = authorized.find((k) => k.type === ctx.key.algo && k.getPublicSSH().equals(ctx.key.data));
      // Without a signature the client only asks whether this key would do.
      if (!ctx.signature) return match ? ctx.accept() : ctx.reject(["publickey"]);
      const accepted = match !== undefined && match.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true;
      logins.push({
        user: ctx.username,
        accepted,
        key: match ? options.authorizedKeys[authorized.indexOf(match)]! : null,
      });
      return accepted ? ctx.accept() : ctx.reject(["publickey"]);
    });
    client.on("ready", () => {
      client.on("session", (accept) => {
        const session = accept();
        session.on("env", (acceptEnv) => acceptEnv?.());
        session.on("exec", (acceptExec, reject, info) => {
          const command = /^git[ -](upload-pack|receive-pack) '([^']+)'$/.exec(info.command);
          if (!command) return reject();
          const repo = path.join(root, path.normalize(`/${command[2]!.replace(/^\/?~\//, "")}`));
          const stream = acceptExec();
          const child = spawn("git", [command[1]!, repo], { env: GIT_ENV, stdio: "pipe" });
          stream.pipe(child.stdin);
          child.stdout.pipe(stream, { end: false });
          child.stderr.pipe(stream.stderr, { end: false });
          child.on("close", (code) => {
            stream.exit(code ?? 1);
            stream.end();
          });
        });
      });
    });
    client.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const [keyType, key] = hostPair.publicKey.trim().split(/\s+/);

  return {
    port: (server.address() as AddressInfo).port,
    hostKey: { keyType: keyType!, key: key! },
    logins,
    git,
    createRepository(name, files = {}) {
      const bare = path.join(root, `${name}.git`);
      execFileSync("git", ["init", "--bare", "-q", "-b", "main", bare], { env: GIT_ENV });
      if (Object.keys(files).length === 0) return;
      const work = mkdtempSync(path.join(tmpdir(), "tandem-git-ssh-seed-"));
      for (const [file, content] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
        writeFileSync(path.join(work, file), content);
      }
      const run = (args: string[]) => execFileSync("git", args, { cwd: work, env: GIT_ENV });
      run(["init", "-q", "-b", "main"]);
      run(["add", "-A"]);
      run(["commit", "-q", "-m", "Initial commit"]);
      run(["push", "-q", bare, "main"]);
      rmSync(work, { recursive: true, force: true });
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
