import { describe, expect, it } from "vitest";
import { createAccessChanges, type AccessChange } from "@/server/bus/access-changes";
import { followCredentialExpiries, type CredentialLasts } from "@/server/auth/credential-expiries";
import { until } from "@/server/test/until";

// The credential-expiry timers of the access-change bus, with logins and API tokens whose expiry
// the test sets: one timer per credential (not per connection, not a poll), gone with its last
// connection; an expiry moved on is waited for again. The real server's sockets:
// server/api/login-expiry.test.ts and server/api/token-expiry.test.ts.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A store of logins and tokens: each one's expiry (null: ended) and the reads made, as
 * `login:<id>` or `token:<id>`. An id without a kind is a login's.
 */
function logins(expiries: Record<string, number | null | Error>) {
  const reads: string[] = [];
  const read = (key: string) => {
    reads.push(key.replace(/^login:/, ""));
    const value = expiries[key.replace(/^login:/, "")];
    if (value instanceof Error) throw value;
    return value === null || value === undefined || value <= Date.now() ? null : value;
  };
  const lasts: CredentialLasts = {
    login: async (id) => read(`login:${id}`),
    token: async (id) => read(`token:${id}`),
  };
  return { reads, expiries, lasts };
}

describe("login and token expiries on the access-change bus", () => {
  it("follows a login once for all its connections and tells each of them at its expiry, as a sign-out would", async () => {
    const store = logins({ a: Date.now() + 150, b: Date.now() + 60_000 });
    const bus = followCredentialExpiries(createAccessChanges(), store.lasts);
    const told: Array<[number, AccessChange]> = [];
    const stops = [0, 1, 2].map((i) =>
      bus.subscribe({ userId: "u", loginSessionId: "a", projectId: `p${i}` }, (change) => told.push([i, change])),
    );
    const otherLogin = bus.subscribe({ userId: "u", loginSessionId: "b" }, () =>
      told.push([9, { kind: "user", userId: "u" }]),
    );
    expect(bus.followedCredentials()).toBe(2);
    await until(() => told.length === 3, "the login's connections to be told", 2_000);
    expect(told.map(([i]) => i).sort()).toEqual([0, 1, 2]);
    expect(told[0][1]).toEqual({ kind: "user", userId: "u" });
    expect(store.reads.filter((id) => id === "a")).toHaveLength(2);

    for (const stop of stops) stop();
    otherLogin();
    expect(bus.followedCredentials()).toBe(0);
  });

  it("waits for the next expiry when the login was renewed meanwhile", async () => {
    const store = logins({ a: Date.now() + 100 });
    const bus = followCredentialExpiries(createAccessChanges(), store.lasts);
    let told = 0;
    const stop = bus.subscribe({ userId: "u", loginSessionId: "a" }, () => told++);
    await sleep(20);
    store.expiries.a = Date.now() + 300;
    await sleep(200);
    expect(told).toBe(0);
    expect(store.reads).toHaveLength(2);
    await until(() => told === 1, "the renewed login's end", 2_000);
    stop();
  });

  it("drops the login's timer with its last connection: nothing is read or told after", async () => {
    const store = logins({ a: Date.now() + 100 });
    const bus = followCredentialExpiries(createAccessChanges(), store.lasts);
    let told = 0;
    const first = bus.subscribe({ userId: "u", loginSessionId: "a" }, () => told++);
    const second = bus.subscribe({ userId: "u", loginSessionId: "a" }, () => told++);
    first();
    expect(bus.followedCredentials()).toBe(1);
    second();
    expect(bus.followedCredentials()).toBe(0);
    await sleep(250);
    expect(store.reads).toHaveLength(1);
    expect(told).toBe(0);
  });

  it("tells at once a connection that follows a login already over, or one that ended before it was followed", async () => {
    const store = logins({ a: Date.now() + 50, gone: null });
    const bus = followCredentialExpiries(createAccessChanges(), store.lasts);
    let told = 0;
    // A connection that outlives its login's end (the tRPC WebSocket stays open signed out).
    const stays = bus.subscribe({ userId: "u", loginSessionId: "a" }, () => told++);
    await until(() => told === 1, "the login's end", 2_000);
    // Admitted by an answer kept from before the end, then followed: told without waiting.
    const late = bus.subscribe({ userId: "u", loginSessionId: "a" }, () => told++);
    await until(() => told === 2, "the late connection to be told", 500);
    const ended = bus.subscribe({ userId: "v", loginSessionId: "gone" }, () => told++);
    await until(() => told === 3, "the ended login's connection to be told", 500);
    for (const stop of [stays, late, ended]) stop();
    expect(bus.followedCredentials()).toBe(0);
  });

  it("reads a login that could not be read again later, and follows nothing for a guest or a person without a credential", async () => {
    const store = logins({ a: new Error("database unreachable") });
    const bus = followCredentialExpiries(createAccessChanges(), store.lasts, 50);
    let told = 0;
    const stop = bus.subscribe({ userId: "u", loginSessionId: "a" }, () => told++);
    await until(() => store.reads.length >= 2, "a second read", 2_000);
    expect(told).toBe(0);
    store.expiries.a = null;
    await until(() => told === 1, "the login found ended", 2_000);
    stop();

    const inProcess = bus.subscribe({ userId: "u", loginSessionId: null, tokenId: null, projectId: "p" }, () => told++);
    const guest = bus.subscribe({ sessionId: "s" }, () => told++);
    expect(bus.followedCredentials()).toBe(0);
    inProcess();
    guest();
  });

  it("follows an API token like a login, apart from a login of the same id, and tells only the token's connections", async () => {
    const store = logins({ "token:t": Date.now() + 100, t: Date.now() + 60_000 });
    const bus = followCredentialExpiries(createAccessChanges(), store.lasts);
    const told: string[] = [];
    const stops = [
      bus.subscribe({ userId: "u", tokenId: "t", projectId: "p" }, () => told.push("terminal")),
      bus.subscribe({ userId: "u", tokenId: "t", sessionId: "s" }, () => told.push("events")),
      // The same person's browser, under a login whose id is the token's: not the token.
      bus.subscribe({ userId: "u", loginSessionId: "t" }, () => told.push("browser")),
    ];
    expect(bus.followedCredentials()).toBe(2);
    await until(() => told.length >= 2, "the token's connections to be told", 2_000);
    await sleep(100);
    expect(told.sort()).toEqual(["events", "terminal"]);
    expect(store.reads.filter((key) => key === "token:t")).toHaveLength(2);
    expect(store.reads.filter((key) => key === "t")).toHaveLength(1);
    for (const stop of stops) stop();
    expect(bus.followedCredentials()).toBe(0);
  });
});
