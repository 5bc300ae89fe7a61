import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseForges } from "@/lib/git-forges";
import { openForgePullRequest, pullRequestLink } from "./pull-request";

// GitHub's REST pulls endpoint, served locally: the one fake allowed, since a real forge cannot run here.
let api: http.Server;
let apiUrl: string;
const received: Array<{ path: string; auth: string | undefined; body: unknown }> = [];

beforeAll(async () => {
  api = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", auth: req.headers.authorization, body: JSON.parse(raw || "null") });
      if (req.headers.authorization !== "Bearer good-token")
        return res.writeHead(401, { "content-type": "application/json" }).end('{"message":"Bad credentials"}');
      if (req.method !== "POST" || req.url !== "/api/v3/repos/acme/shop/pulls")
        return res.writeHead(404).end('{"message":"Not Found"}');
      const body = JSON.parse(raw) as { head: string; base: string; title: string };
      // An answer longer than any the server reads: a forge that wants the server's memory.
      if (body.title === "huge")
        return res
          .writeHead(201, { "content-type": "application/json" })
          .end(`{"number":7,"html_url":"https://ghe.acme.test/acme/shop/pull/7","padding":"${"x".repeat(3 << 20)}"}`);
      if (body.head === body.base)
        return res.writeHead(422, { "content-type": "application/json" }).end('{"message":"Validation Failed"}');
      res
        .writeHead(201, { "content-type": "application/json" })
        .end(JSON.stringify({ number: 7, html_url: "https://ghe.acme.test/acme/shop/pull/7" }));
    });
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api/v3`;
});
afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

describe("pull requests", () => {
  it("builds the link each common host uses", () => {
    expect(pullRequestLink("https://github.com/acme/shop.git", "feat/x", {})).toBe(
      "https://github.com/acme/shop/pull/new/feat%2Fx",
    );
    expect(pullRequestLink("https://gitlab.com/acme/group/shop.git", "fix", {})).toBe(
      "https://gitlab.com/acme/group/shop/-/merge_requests/new?merge_request%5Bsource_branch%5D=fix",
    );
    expect(pullRequestLink("https://bitbucket.org/acme/shop.git", "fix", {})).toBe(
      "https://bitbucket.org/acme/shop/pull-requests/new?source=fix",
    );
    expect(pullRequestLink("https://codeberg.org/acme/shop.git", "fix", {})).toBe(
      "https://codeberg.org/acme/shop/compare/fix",
    );
    expect(pullRequestLink("https://git.acme.dev/acme/shop.git", "fix", parseForges("git.acme.dev=forgejo"))).toBe(
      "https://git.acme.dev/acme/shop/compare/fix",
    );
    expect(pullRequestLink("https://unknown.example/acme/shop.git", "fix", {})).toBeNull();
    expect(pullRequestLink("http://git.acme.dev:8080/acme/shop.git", "fix", parseForges("git.acme.dev=gitea"))).toBe(
      "http://git.acme.dev:8080/acme/shop/compare/fix",
    );
    expect(
      pullRequestLink("http://git.acme.dev:8080/acme/shop.git", "fix", parseForges("git.acme.dev:9090=gitea")),
    ).toBeNull();
  });

  it("opens one through the GitHub REST API with the person's token and returns its URL", async () => {
    const forges = parseForges(`ghe.acme.test=github@${apiUrl}`);
    const pr = await openForgePullRequest({
      remote: "https://ghe.acme.test/acme/shop.git",
      forges,
      token: "good-token",
      head: "feature",
      base: "main",
      title: "Add it",
      body: "Why",
    });
    expect(pr).toEqual({ url: "https://ghe.acme.test/acme/shop/pull/7", number: 7 });
    expect(received.at(-1)).toMatchObject({
      path: "/api/v3/repos/acme/shop/pulls",
      body: { title: "Add it", head: "feature", base: "main", body: "Why" },
    });
  });

  it("says the token was refused, and passes on the host's reason for other refusals", async () => {
    const forges = parseForges(`ghe.acme.test=github@${apiUrl}`);
    const base = {
      remote: "https://ghe.acme.test/acme/shop.git",
      forges,
      head: "feature",
      base: "main",
      title: "t",
      body: "",
    };
    await expect(openForgePullRequest({ ...base, token: "bad" })).rejects.toMatchObject({ code: "AUTH_FAILED" });
    await expect(openForgePullRequest({ ...base, token: "good-token", head: "main" })).rejects.toMatchObject({
      message: expect.stringContaining("Validation Failed"),
    });
    // Read up to 2 MB, then taken for no answer.
    await expect(openForgePullRequest({ ...base, token: "good-token", title: "huge" })).rejects.toMatchObject({
      message: expect.stringContaining("did not name the new pull request"),
    });
  });
});
