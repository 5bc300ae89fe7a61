import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import ssh2, { type ParsedKey, type OpenSSHAgent as Agent } from "ssh2";
import { generateSshKey } from "@/server/test/git-ssh-server";
import { openSshSession } from "./ssh-session";

const { OpenSSHAgent, utils } = ssh2;

const key = generateSshKey("ed25519");
const other = generateSshKey("ed25519");
const publicKey = (pair: { publicKey: string }) => utils.parseKey(pair.publicKey) as ParsedKey;

const sign = (agent: Agent, pub: ParsedKey, data: Buffer) =>
  new Promise<Buffer>((resolve, reject) =>
    agent.sign(pub, data, {}, (error, signature) => (error ? reject(error) : resolve(signature!))),
  );

// What a process in the sandbox can do with the folder bound into its git run, tried as it would.
describe("the ssh agent of one git operation", () => {
  it("lists only its key, and OpenSSH's own ssh-add sees the same one", async () => {
    const session = await openSshSession({ privateKey: key.privateKey }, []);
    try {
      const { stdout } = await promisify(execFile)("ssh-add", ["-L"], {
        env: { PATH: "/usr/bin:/bin", SSH_AUTH_SOCK: path.join(session.dir, "agent.sock") } as Record<
          string,
          string
        > as NodeJS.ProcessEnv,
      });
      expect(stdout.trim().split("\n")).toHaveLength(1);
      expect(stdout.split(" ").slice(0, 2).join(" ")).toBe(key.publicKey.trim().split(" ").slice(0, 2).join(" "));
    } finally {
      await session.close();
    }
  });

  it("signs for its key only, and the signature verifies with the public key", async () => {
    const session = await openSshSession({ privateKey: key.privateKey }, []);
    const agent = new OpenSSHAgent(path.join(session.dir, "agent.sock"));
    try {
      const data = Buffer.from("session data to sign");
      expect(publicKey(key).verify(data, await sign(agent, publicKey(key), data))).toBe(true);
      await expect(sign(agent, publicKey(other), data)).rejects.toThrow(/failure/i);
    } finally {
      await session.close();
    }
  });

  it("puts nothing of the private key in the folder the sandbox sees, and is gone when the operation ends", async () => {
    const session = await openSshSession({ privateKey: key.privateKey }, []);
    const secretLine = key.privateKey.split("\n")[2]!;
    for (const name of await readdir(session.dir)) {
      if (name === "agent.sock") continue;
      expect(await readFile(path.join(session.dir, name), "utf8")).not.toContain(secretLine);
    }
    const socket = path.join(session.dir, "agent.sock");
    await session.close();
    expect(existsSync(socket)).toBe(false);
    const agent = new OpenSSHAgent(socket);
    await expect(
      new Promise((resolve, reject) => agent.getIdentities((error, keys) => (error ? reject(error) : resolve(keys)))),
    ).rejects.toThrow();
  });

  it("refuses a key it could not use, in words", async () => {
    await expect(openSshSession({ privateKey: key.publicKey }, [])).rejects.toThrow(/public key/);
  });
});
