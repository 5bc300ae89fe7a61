import { describe, expect, it } from "vitest";
import { credentialCipher } from "./credential-cipher";

describe("credential cipher", () => {
  it("seals with AES-256-GCM so the token is not in the stored bytes, and opens it again", () => {
    const cipher = credentialCipher("a".repeat(64));
    const sealed = cipher.seal("ghp_token");
    expect(sealed.secret.toString("latin1")).not.toContain("ghp_token");
    expect(cipher.open(sealed)).toBe("ghp_token");
  });

  it("refuses altered ciphertext and keys it does not hold", () => {
    const cipher = credentialCipher("a".repeat(64));
    const sealed = cipher.seal("ghp_token");
    const altered = Buffer.from(sealed.secret);
    altered[altered.length - 1]! ^= 1;
    expect(cipher.open({ keyId: sealed.keyId, secret: altered })).toBeNull();
    expect(credentialCipher("b".repeat(64)).open(sealed)).toBeNull();
  });

  it("opens tokens sealed under a previous secret after a rotation, and seals new ones under the current key", () => {
    const old = credentialCipher("old-secret".repeat(4));
    const sealed = old.seal("glpat-token");
    const rotated = credentialCipher("new-secret".repeat(4), ["old-secret".repeat(4)]);
    expect(rotated.keyId).not.toBe(old.keyId);
    expect(rotated.open(sealed)).toBe("glpat-token");
    expect(rotated.seal("x").keyId).toBe(rotated.keyId);
  });
});
