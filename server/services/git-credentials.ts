import { z } from "zod";
import type { Db } from "@/server/db/client";
import * as credentials from "@/server/db/repositories/git-credentials";
import type { CredentialCipher } from "@/server/git/credential-cipher";

export const credentialInput = z.object({
  name: z.string().trim().min(1, "Give the credential a name").max(100),
  host: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9.-]+(:\d{1,5})?$/, "The host is a name such as github.com (with :port if not the default)"),
  username: z.string().trim().max(200).optional(),
  token: z.string().trim().min(1, "Paste the token").max(10_000),
});
export type CredentialInput = z.infer<typeof credentialInput>;

/** Stores a token sealed; what comes back is only its name, host and username. */
export function storeGitCredential(db: Db, cipher: CredentialCipher, input: CredentialInput, owner: { userId: string } | { teamId: string }, createdById: string) {
  // Forges take any username with a token; GitHub documents this one.
  const username = input.username || "x-access-token";
  return credentials.createGitCredential(db, { name: input.name, host: input.host, username, owner, createdById, ...cipher.seal(input.token) });
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
