import type { Db } from "@/server/db/client";
import * as secrets from "@/server/db/repositories/secrets";
import type { CredentialCipher } from "@/server/git/credential-cipher";
import { createRedactor, type ProcessSecrets } from "@/server/secrets/redactor";

// Secrets of a project, a team or a person, sealed with the server's key as git credentials are
// (credential-cipher.ts), and what a project's processes get of them.

export type SecretOwner = secrets.SecretOwner;

/**
 * What a process of a project gets: the variables, the redactor that hides exactly their values,
 * and which names are the person's own (they must not reach a process others drive).
 */
export type SecretEnvironment = ProcessSecrets & { personal: string[] };

export async function setSecret(
  db: Db,
  cipher: CredentialCipher,
  owner: SecretOwner,
  input: { name: string; value: string },
  createdById: string,
) {
  return secrets.putSecret(db, owner, { name: input.name, createdById, ...cipher.seal(input.value) });
}

/**
 * The environment of a project's process: its team's secrets, then the project's, then (with
 * `personId`) the person's own, a later one winning a name (person > project > team). Call it with
 * a person only for a process that person alone drives (their terminal, a session only they wrote
 * into); the setup script and discovery commands get none.
 */
export async function secretEnvironment(
  db: Db,
  cipher: CredentialCipher,
  input: { projectId: string; personId?: string | null },
): Promise<SecretEnvironment> {
  const sealed = await secrets.sealedSecretsFor(db, { projectId: input.projectId, personId: input.personId ?? null });
  const env: Record<string, string> = {};
  const personal: string[] = [];
  for (const [layer, rows] of [
    ["team", sealed.team],
    ["project", sealed.project],
    ["person", sealed.person],
  ] as const) {
    for (const row of rows) {
      // A secret sealed under a key this server no longer has cannot be opened: it is left out.
      const value = cipher.open(row);
      if (value === null) continue;
      env[row.name] = value;
      if (layer === "person") personal.push(row.name);
    }
  }
  const redactor = createRedactor(Object.entries(env).map(([name, value]) => ({ name, value })));
  return { env, redactor, personal: personal.filter((name) => name in env) };
}

/** After the server secret changed: seals every secret still under an old key under the current one. */
export async function resealSecrets(db: Db, cipher: CredentialCipher): Promise<number> {
  let count = 0;
  for (const row of await secrets.listSecretsNotUnder(db, cipher.keyId)) {
    const value = cipher.open(row);
    if (value === null) continue;
    await secrets.resealSecret(db, row.id, cipher.seal(value));
    count++;
  }
  return count;
}
