import { createHash } from "node:crypto";
import type { ParsedKey } from "ssh2";
import { GitError } from "./errors";
import { ssh2 } from "./ssh2";

/** What is sealed for an ssh-key credential: the key as pasted, and its passphrase if it has one. */
export type SshKeySecret = { privateKey: string; passphrase?: string };

const KEY_TYPES = new Set(["ssh-ed25519", "ssh-rsa"]);

/**
 * Parses a private key with ssh2's parser (OpenSSH and PEM formats, encrypted or not) and refuses
 * what git's ssh could not use through Tandem's agent: a public key, a wrong passphrase, a type
 * other than ed25519 or rsa.
 */
export function parseSshPrivateKey(secret: SshKeySecret): ParsedKey {
  const parsed = ssh2().utils.parseKey(secret.privateKey, secret.passphrase || undefined);
  if (parsed instanceof Error) {
    const message = parsed.message;
    if (/no passphrase given/i.test(message))
      throw new GitError("BAD_INPUT", "This key is encrypted: give its passphrase.");
    if (/bad passphrase|integrity check failed|bad decrypt/i.test(message))
      throw new GitError("BAD_INPUT", "The passphrase does not open this key.");
    throw new GitError(
      "BAD_INPUT",
      "That is not an ssh private key Tandem can read (paste the whole file, from -----BEGIN to -----END).",
    );
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key?.isPrivateKey())
    throw new GitError("BAD_INPUT", "That is a public key: paste the private key (the file without .pub).");
  if (!KEY_TYPES.has(key.type))
    throw new GitError("BAD_INPUT", `Tandem takes ed25519 and rsa keys; this one is ${key.type}.`);
  return key;
}

/** The public key's SHA256 fingerprint, written as `ssh-keygen -l` writes it. */
export function sshFingerprint(key: ParsedKey): string {
  return blobFingerprint(key.getPublicSSH());
}

/** The fingerprint of a key as known_hosts holds it (base64 of the public key blob). */
export const hostKeyFingerprint = (base64: string) => blobFingerprint(Buffer.from(base64, "base64"));

const blobFingerprint = (blob: Buffer) =>
  `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;

export function encodeSshKeySecret(secret: SshKeySecret): string {
  return JSON.stringify({
    privateKey: secret.privateKey,
    ...(secret.passphrase ? { passphrase: secret.passphrase } : {}),
  });
}

export function decodeSshKeySecret(sealed: string): SshKeySecret {
  const value = JSON.parse(sealed) as SshKeySecret;
  return { privateKey: value.privateKey, passphrase: value.passphrase };
}
