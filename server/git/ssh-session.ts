import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ParsedKey } from "ssh2";
import { BRIDGE_PORT } from "@/server/sandbox/launcher";
import { parseSshPrivateKey, type SshKeySecret } from "./ssh-key";
import { ssh2 } from "./ssh2";

/** A host key as known_hosts holds it: `host` is `name` or `[name]:port`. */
export type KnownHostKey = { host: string; keyType: string; key: string };

// Why an agent rather than a key file: the private key must never be readable inside the sandbox
// (nor written to a disk the workspace's processes share). ssh inside the sandbox sees only this
// agent's socket, bound into the one git run that needs it; the server answers its sign requests
// with the key it holds in memory, and the socket is gone when the run ends, so nothing that
// runs later (the agent's shell, a terminal) can ask it for a signature.
//
// Why our own ProxyCommand script: the sandbox has no network of its own, only the bridge to the
// egress proxy on 127.0.0.1:BRIDGE_PORT. OpenSSH has no built-in HTTP CONNECT client and netcat
// (with -X connect) is not guaranteed on the host, so this dozen-line script runs on the node
// binary the sandbox already binds for the bridge; the proxy then applies the project's policy,
// narrowed to the remote's host, exactly as for https.
const PROXY_SCRIPT = `"use strict";
const net = require("node:net");
const [host, port, proxyPort] = process.argv.slice(2);
const socket = net.connect(Number(proxyPort), "127.0.0.1");
let head = Buffer.alloc(0);
const fail = (why) => { process.stderr.write("ssh: " + why + "\\n"); process.exit(1); };
socket.on("error", (error) => fail("Failed to connect to the network proxy: " + error.message));
socket.on("connect", () => socket.write("CONNECT " + host + ":" + port + " HTTP/1.1\\r\\nHost: " + host + ":" + port + "\\r\\n\\r\\n"));
const onHead = (chunk) => {
  head = Buffer.concat([head, chunk]);
  const end = head.indexOf("\\r\\n\\r\\n");
  if (end < 0) return head.length > 65536 && fail("the proxy's answer is too long");
  socket.off("data", onHead);
  const status = head.subarray(0, head.indexOf("\\r\\n")).toString();
  if (!/^HTTP\\/1\\.[01] 200/.test(status)) fail("CONNECT tunnel failed, response " + status.split(" ")[1] + ": " + head.subarray(end + 4).toString().trim());
  if (head.length > end + 4) process.stdout.write(head.subarray(end + 4));
  socket.pipe(process.stdout);
  process.stdin.pipe(socket);
  socket.on("end", () => process.exit(0));
};
socket.on("data", onHead);
`;

// ssh2's AgentProtocol answers the two requests an agent must (list identities, sign), but it
// misreads the message after one it does not know: it skips only the type byte of the unknown
// one, and OpenSSH sends such a message (session-bind@openssh.com) before listing identities. So
// frames are cut here, and only those two kinds reach it; every other request gets the
// protocol's plain failure answer, as ssh-agent gives for an extension it lacks.
const SSH_AGENTC_REQUEST_IDENTITIES = 11;
const SSH_AGENTC_SIGN_REQUEST = 13;
const AGENT_FAILURE = Buffer.from([0, 0, 0, 1, 5]);
const MAX_AGENT_MESSAGE = 256 * 1024;

function agentFrames(pass: (frame: Buffer) => void, refuse: () => void, abort: () => void) {
  let pending = Buffer.alloc(0);
  return (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      if (length < 1 || length > MAX_AGENT_MESSAGE) return abort();
      if (pending.length < 4 + length) return;
      const frame = pending.subarray(0, 4 + length);
      pending = pending.subarray(4 + length);
      if (frame[4] === SSH_AGENTC_REQUEST_IDENTITIES || frame[4] === SSH_AGENTC_SIGN_REQUEST) pass(frame);
      else refuse();
    }
  };
}

/** Where the session's folder appears inside the sandbox. */
export const SSH_MOUNT = "/run/tandem-ssh";
/** Where the sandbox launcher binds the server's node binary when the process has network. */
const SANDBOX_NODE = "/run/tandem/node";

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** `host` or `[host]:port`, the name ssh files a host key under. */
export const knownHostName = (hostname: string, port: number) => (port === 22 ? hostname : `[${hostname}]:${port}`);

/**
 * One ssh git operation's agent (holding only `secret`'s key), known_hosts (the project's
 * recorded keys for the remote's host; ssh adds a new host's key, which the caller records) and
 * ProxyCommand script, in a folder bound into that one run.
 */
export async function openSshSession(secret: SshKeySecret, known: KnownHostKey[]) {
  const key: ParsedKey = parseSshPrivateKey(secret);
  const publicBlob = key.getPublicSSH();
  const dir = await mkdtemp(path.join(tmpdir(), "tandem-git-ssh-"));
  // Reachable by the sandbox's own identity, whatever uid it gets; the folder's name is random.
  await chmod(dir, 0o711);
  const knownHosts = path.join(dir, "known_hosts");
  const initial = known.map((k) => `${k.host} ${k.keyType} ${k.key}\n`).join("");
  await writeFile(knownHosts, initial, { mode: 0o666 });
  await chmod(knownHosts, 0o666);
  await writeFile(path.join(dir, "id.pub"), `${key.type} ${publicBlob.toString("base64")}\n`, { mode: 0o644 });
  await writeFile(path.join(dir, "proxy.cjs"), PROXY_SCRIPT, { mode: 0o644 });

  const connections = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
    const agent = new (ssh2().AgentProtocol)(false);
    agent.on("identities", (request) => agent.getIdentitiesReply(request, [key]));
    agent.on("sign", (request, pubKey: ParsedKey, data: Buffer, options: { hash?: string }) => {
      if (!pubKey.getPublicSSH().equals(publicBlob)) return agent.failureReply(request);
      const signature = key.sign(data, options.hash);
      if (signature instanceof Error) agent.failureReply(request);
      else agent.signReply(request, signature);
    });
    agent.on("error", () => socket.destroy());
    socket.on("error", () => agent.destroy());
    agent.pipe(socket);
    socket.on(
      "data",
      agentFrames(
        (frame) => agent.write(frame),
        () => socket.write(AGENT_FAILURE),
        () => socket.destroy(),
      ),
    );
  });
  const agentSocket = path.join(dir, "agent.sock");
  await new Promise<void>((resolve, reject) => server.listen(agentSocket, resolve).once("error", reject));
  await chmod(agentSocket, 0o666);

  return {
    dir,
    /**
     * The ssh git runs, given where `dir` appears to it and whether the network is the proxy's
     * bridge (in the sandbox) or direct (TANDEM_SANDBOX=none). No config file is read (-F
     * /dev/null), so neither the host's nor a home folder's ssh settings apply.
     */
    command(mountedAt: string, options: { throughProxy: boolean; user?: string }) {
      // ssh splits its own option values on spaces: the folder's path has none (a random name under the temp folder or SSH_MOUNT).
      const at = (name: string) => `${mountedAt}/${name}`;
      const settings = [
        "BatchMode=yes",
        `IdentityAgent=${at("agent.sock")}`,
        `IdentityFile=${at("id.pub")}`,
        "IdentitiesOnly=yes",
        "PreferredAuthentications=publickey",
        "StrictHostKeyChecking=accept-new",
        `UserKnownHostsFile=${at("known_hosts")}`,
        "GlobalKnownHostsFile=/dev/null",
        "HashKnownHosts=no",
        "UpdateHostKeys=no",
        "CheckHostIP=no",
        "ForwardAgent=no",
        "ClearAllForwardings=yes",
        "PermitLocalCommand=no",
        "ControlMaster=no",
        "ControlPath=none",
        "LogLevel=ERROR",
        ...(options.user ? [`User=${options.user}`] : []),
        ...(options.throughProxy ? [`ProxyCommand=${SANDBOX_NODE} ${at("proxy.cjs")} %h %p ${BRIDGE_PORT}`] : []),
      ];
      // git runs the command through the shell, appending its own arguments.
      return ["ssh", "-F", "/dev/null", ...settings.flatMap((s) => ["-o", quote(s)])].join(" ");
    },
    /** Host keys ssh accepted on first use during the run, for `host` only (anything else written there is ignored). */
    async newHostKeys(host: string): Promise<KnownHostKey[]> {
      const lines = (await readFile(knownHosts, "utf8").catch(() => "")).slice(initial.length).split("\n");
      return lines.flatMap((line) => {
        const [name, keyType, keyData] = line.trim().split(/\s+/);
        if (name !== host || !keyType || !keyData || !/^[A-Za-z0-9+/=]+$/.test(keyData)) return [];
        return [{ host, keyType, key: keyData }];
      });
    },
    async close() {
      server.close();
      for (const socket of connections) socket.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type SshSession = Awaited<ReturnType<typeof openSshSession>>;
