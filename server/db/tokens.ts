import { createHash, randomBytes } from "node:crypto";

// Secret link tokens (sign-up and team invitations, share links): 32 random bytes from the OS's secure
// generator, shown once to whoever made them; only their SHA-256 is stored.

export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The shape of a token from newToken(): 43 base64url characters. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
