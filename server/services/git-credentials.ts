import { z } from "zod";
import type { Db } from "@/server/db/client";
import * as credentials from "@/server/db/repositories/git-credentials";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import { encodeSshKeySecret, parseSshPrivateKey, sshFingerprint } from "@/server/git/ssh-key";

const common = {
  name: z.string().trim().min(1, "Give the credential a name").max(100),
  host: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9.-]+(:\d{1,5})?$/, "The host is a name such as github.com (with :port if not the default)"),
  username: z.string().trim().max(200).optional(),
};
const tokenInput = z.object({
  ...common,
  kind: z.literal("token").optional(),
  token: z.string().trim().min(1, "Paste the token").max(10_000),
});
const sshKeyInput = z.object({
  ...common,
  kind: z.literal("ssh-key"),
  // Trailing whitespace only: a key file's inner line breaks are part of it.
  privateKey: z
    .string()
    .min(1, "Paste the private key")
    .max(20_000)
    .transform((key) => `${key.trim()}\n`),
  passphrase: z.string().max(1_000).optional(),
});
/** A token (kind omitted or `token`) or an ssh private key (`ssh-key`) for one host. */
export const credentialInput = z.union([sshKeyInput, tokenInput]);
export type CredentialInput = z.infer<typeof credentialInput>;

/**
 * Stores a token or an ssh key sealed; what comes back is only its name, host, username, kind and
 * (for a key) its public fingerprint. A key is parsed first: one ssh could not use is refused in words.
 */
export async function storeGitCredential(
  db: Db,
  cipher: CredentialCipher,
  input: CredentialInput,
  owner: { userId: string } | { teamId: string },
  createdById: string,
) {
  const base = { name: input.name, host: input.host, owner, createdById };
  if (input.kind === "ssh-key") {
    const secret = { privateKey: input.privateKey, passphrase: input.passphrase || undefined };
    const fingerprint = sshFingerprint(parseSshPrivateKey(secret));
    // The login for URLs that name none (git@github.com:owner/repo names `git` itself).
    return credentials.createGitCredential(db, {
      ...base,
      username: input.username || "git",
      kind: "ssh-key",
      fingerprint,
      ...cipher.seal(encodeSshKeySecret(secret)),
    });
  }
  // Forges take any username with a token; GitHub documents this one.
  return credentials.createGitCredential(db, {
    ...base,
    username: input.username || "x-access-token",
    kind: "token",
    ...cipher.seal(input.token),
  });
}

/** After the server secret changed: seals every token still under an old key under the current one. */
export async function resealGitCredentials(db: Db, cipher: CredentialCipher): Promise<number> {
  let count = 0;
  for (const row of await credentials.listGitCredentialsNotUnder(db, cipher.keyId)) {
    const token = cipher.open(row);
    if (token === null) continue;
    await credentials.resealGitCredential(db, row.id, cipher.seal(token));
    count++;
  }
  return count;
}
