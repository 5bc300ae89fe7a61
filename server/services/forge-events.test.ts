import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { forgeComment, forgeDelivery, gitlabToken, signedWith, tandemRequest } from "./forge-events";

// The three forges' deliveries as they arrive: which forge by its headers (Forgejo's own or
// Gitea's), each one's signature scheme, and which payloads are a new comment at all.

const headers = (h: Record<string, string>) => (name: string) => h[name] ?? null;
const body = Buffer.from('{"x":1}');
const hmac = (key: string) => createHmac("sha256", key).update(body).digest("hex");

describe("forge deliveries", () => {
  it("tells the forge by its headers, Forgejo's own before Gitea's", () => {
    expect(forgeDelivery(headers({ "x-github-event": "issue_comment", "x-github-delivery": "d1" }))).toMatchObject({
      forge: "github",
      delivery: "d1",
    });
    expect(
      forgeDelivery(headers({ "x-forgejo-event": "issue_comment", "x-gitea-event": "x", "x-forgejo-delivery": "d2" })),
    ).toMatchObject({ forge: "gitea", event: "issue_comment", delivery: "d2" });
    expect(forgeDelivery(headers({ "x-tandem-delivery": "d3" }))).toBeNull();
  });

  it("checks each forge's signature under the secret and nothing else", () => {
    const github = { forge: "github", event: "issue_comment", delivery: "d" } as const;
    expect(signedWith({ ...github, signature: `sha256=${hmac("s3cret")}` }, "s3cret", body)).toBe(true);
    expect(signedWith({ ...github, signature: hmac("s3cret") }, "s3cret", body)).toBe(false);
    expect(signedWith({ ...github, signature: `sha256=${hmac("other")}` }, "s3cret", body)).toBe(false);
    expect(signedWith({ ...github, signature: null }, "s3cret", body)).toBe(false);
    const gitea = { forge: "gitea", event: "issue_comment", delivery: "d" } as const;
    expect(signedWith({ ...gitea, signature: hmac("s3cret") }, "s3cret", body)).toBe(true);
    const gitlab = { forge: "gitlab", event: "Note Hook", delivery: "d" } as const;
    expect(signedWith({ ...gitlab, signature: gitlabToken("s3cret") }, "s3cret", body)).toBe(true);
    expect(signedWith({ ...gitlab, signature: gitlabToken("s3cre") }, "s3cret", body)).toBe(false);
    // GitLab sends its token in the clear: it is not the secret, which signs any prompt.
    expect(signedWith({ ...gitlab, signature: "s3cret" }, "s3cret", body)).toBe(false);
  });

  it("reads only new comments on issues and pull requests", () => {
    const github = { forge: "github", event: "issue_comment", delivery: "d", signature: null } as const;
    const payload = {
      action: "created",
      issue: { number: 3, title: "Bug" },
      comment: { id: 9, body: "@tandem fix", user: { login: "ada" }, created_at: "2026-11-29T06:00:00Z" },
      repository: { full_name: "acme/shop" },
    };
    expect(forgeComment(github, payload)).toMatchObject({ commentId: "github:9", on: { kind: "issue", number: 3 } });
    expect(forgeComment(github, { ...payload, action: "edited" })).toBeNull();
    expect(forgeComment({ ...github, event: "push" }, payload)).toBeNull();
    const note = {
      object_kind: "note",
      user: { username: "ada" },
      project: { path_with_namespace: "acme/group/shop" },
      object_attributes: {
        id: 4,
        note: "@tandem go",
        noteable_type: "MergeRequest",
        created_at: "2026-11-29 06:00:00 UTC",
      },
      merge_request: { iid: 12, title: "Cart" },
    };
    const gitlab = { forge: "gitlab", event: "Note Hook", delivery: "d", signature: null } as const;
    expect(forgeComment(gitlab, note)).toMatchObject({
      repo: "acme/group/shop",
      createdAt: new Date("2026-11-29T06:00:00Z"),
      on: { kind: "pull", number: 12 },
    });
    expect(
      forgeComment(gitlab, { ...note, object_attributes: { ...note.object_attributes, noteable_type: "Commit" } }),
    ).toBeNull();
    // Inline comments on a pull request's diff carry their file and line.
    const diffNote = { ...note.object_attributes, position: { new_path: "src/cart.ts", new_line: 40 } };
    expect(forgeComment(gitlab, { ...note, object_attributes: diffNote })).toMatchObject({
      on: { kind: "pull", number: 12 },
      at: { path: "src/cart.ts", line: 40 },
    });
    const review = {
      action: "created",
      pull_request: { number: 5, title: "Cart" },
      comment: { ...payload.comment, id: 10, path: "src/cart.ts", line: null },
      repository: payload.repository,
    };
    expect(forgeComment({ ...github, event: "pull_request_review_comment" }, review)).toMatchObject({
      commentId: "github:10",
      on: { kind: "pull", number: 5 },
      at: { path: "src/cart.ts", line: null },
    });
    // Only GitHub sends that event; the same payload as an issue comment is not one.
    expect(forgeComment(github, review)).toBeNull();
  });

  it("finds the request after an @tandem mention, and only a mention", () => {
    expect(tandemRequest("@tandem fix the build")).toBe("fix the build");
    expect(tandemRequest("Could you\n@Tandem  add tests\nplease")).toBe("add tests\nplease");
    expect(tandemRequest("mail me at x@tandem.dev")).toBeNull();
    expect(tandemRequest("@tandem-bot did this")).toBeNull();
    expect(tandemRequest("@tandem")).toBeNull();
    expect(tandemRequest("see @tandem.dev")).toBeNull();
  });
});
