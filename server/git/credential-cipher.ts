import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";

// Git tokens at rest: AES-256-GCM under a key derived (HKDF-SHA256) from the server secret. Each
// ciphertext names its key by id, so after the secret changes, tokens sealed under a previous
// secret (TANDEM_PREVIOUS_SECRETS) still open and are sealed again under the current one.
const INFO = "tandem git credentials v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

type Key = { id: string; key: Buffer };

function deriveKey(secret: string): Key {
  const key = Buffer.from(hkdfSync("sha256", secret, "tandem", INFO, 32));
  return { id: createHash("sha256").update(key).digest("hex").slice(0, 16), key };
}

export type CredentialCipher = ReturnType<typeof credentialCipher>;

export function credentialCipher(secret: string, previousSecrets: string[] = []) {
  const current = deriveKey(secret);
  const keys = new Map([current, ...previousSecrets.map(deriveKey)].map((k) => [k.id, k.key]));
  return {
    keyId: current.id,
    seal(plain: string): { keyId: string; secret: Buffer } {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current.key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return { keyId: current.id, secret: Buffer.concat([iv, cipher.getAuthTag(), body]) };
    },
    /** The token, or null when no configured secret made its key (or the ciphertext was altered). */
    open(sealed: { keyId: string; secret: Uint8Array }): string | null {
      const key = keys.get(sealed.keyId);
      if (!key) return null;
      const data = Buffer.from(sealed.secret);
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, data.subarray(0, IV_BYTES));
        decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}
