import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createPreviewAccess } from "./preview-access";

// A person's preview session names the login (or agent) session it lasts as long as. One signed
// before sessions were bound (still in a browser, valid for hours) names none, and opens nothing.

const SECRET = "preview access test secret";

/** A session cookie as the server signed them before they were bound: the same key, the same shape. */
function unboundSession(grant: object): string {
  const key = createHmac("sha256", SECRET).update("tandem preview access v1").digest();
  const payload = Buffer.from(JSON.stringify(grant)).toString("base64url");
  return `${payload}.${createHmac("sha256", key).update(`session.${payload}`).digest("base64url")}`;
}

describe("a person's preview session", () => {
  const access = createPreviewAccess(SECRET);

  it("carries the login session it was entered under, and nothing of the login's cookie", () => {
    const redeemed = access.redeem(access.entryToken("p", 5173, "ada", { loginSessionId: "login-1" }), "p", 5173)!;
    expect(redeemed.grant).toMatchObject({ userId: "ada", by: { loginSessionId: "login-1" } });
    expect(access.session(redeemed.cookie, "p", 5173)?.by).toEqual({ loginSessionId: "login-1" });
  });

  it("opens nothing when it names no login or agent session, or a made-up kind of one", () => {
    const base = { projectId: "p", port: 5173, exp: Date.now() + 60_000, nonce: "n", userId: "ada" };
    // The signing is right: only the binding is missing or wrong.
    expect(access.session(unboundSession({ ...base, by: { loginSessionId: "x" } }), "p", 5173)).not.toBeNull();
    expect(access.session(unboundSession(base), "p", 5173)).toBeNull();
    expect(access.session(unboundSession({ ...base, by: {} }), "p", 5173)).toBeNull();
    expect(access.session(unboundSession({ ...base, by: { loginSessionId: "" } }), "p", 5173)).toBeNull();
    expect(access.session(unboundSession({ ...base, by: { anything: "x" } }), "p", 5173)).toBeNull();
    expect(
      access.session(unboundSession({ ...base, by: { loginSessionId: "x", agentSessionId: "y" } }), "p", 5173),
    ).toBeNull();
    expect(access.session(unboundSession({ ...base, by: { loginSessionId: 7 } }), "p", 5173)).toBeNull();
    // Nor is an entry link made without one.
    expect(() => access.entryToken("p", 5173, "ada", { loginSessionId: "" })).toThrow();
  });
});
