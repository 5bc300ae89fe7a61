import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export type GitSecret = { username: string; password: string };

/** Where the helper's folder appears inside the sandbox. */
export const HELPER_MOUNT = "/run/tandem-git";

// The program git runs as its credential helper, inside the sandbox: it passes git's request to
// the server's socket and prints the one answer. Only `get` is answered; store and erase are
// ignored, so nothing is ever written down inside the sandbox.
const HELPER = `const net = require("node:net");
const op = process.argv[2];
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  if (op !== "get") return;
  const socket = net.connect(require("node:path").join(__dirname, "socket"));
  let answer = "";
  socket.on("data", (c) => (answer += c));
  socket.on("error", () => process.exit(0));
  socket.on("close", () => process.stdout.write(answer));
  socket.end(input);
});
`;

/**
 * A one-shot credential socket for one git operation against one remote: the first request for
 * that protocol and host gets the secret; then the socket closes. A request for another host
 * (a redirect, an `insteadOf` in the repository's config) gets nothing.
 */
export async function openCredentialSocket(remote: URL, secret: GitSecret) {
  const dir = await mkdtemp(path.join(tmpdir(), "tandem-git-cred-"));
  await writeFile(path.join(dir, "helper.cjs"), HELPER, { mode: 0o644 });
  // Reachable by the sandbox's own identity, whatever uid it gets; the folder's name is random.
  await chmod(dir, 0o711);
  let answered = false;
  const server = net.createServer((socket) => {
    let request = "";
    socket.on("data", (chunk) => {
      request += chunk.toString("utf8");
      if (request.length > 8192) socket.destroy();
    });
    socket.on("error", () => undefined);
    socket.on("end", () => {
      const fields = Object.fromEntries(
        request
          .split("\n")
          .flatMap((line) =>
            line.includes("=") ? [[line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]] : [],
          ),
      );
      const matches = fields.protocol === remote.protocol.replace(/:$/, "") && fields.host === remote.host;
      if (!answered && matches) {
        answered = true;
        socket.end(`username=${secret.username}\npassword=${secret.password}\n\n`);
        server.close();
      } else socket.end("quit=1\n\n");
    });
  });
  const socketPath = path.join(dir, "socket");
  await new Promise<void>((resolve, reject) => server.listen(socketPath, resolve).once("error", reject));
  await chmod(socketPath, 0o666);
  return {
    dir,
    /** The helper command for git's config, given where `dir` appears to git. */
    helperCommand: (mountedAt: string) => `!/usr/bin/node ${mountedAt}/helper.cjs`,
    async close() {
      server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
