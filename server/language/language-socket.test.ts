import { describe, expect, it } from "vitest";
import { uriRewriter } from "./language-socket";

describe("language socket URIs", () => {
  const { toClient, toServer } = uriRewriter("/data/workspaces/p 1");

  it("shows workspace files as file:///<path> and hides the server's folders", () => {
    const message = { uri: "file:///data/workspaces/p%201/src/a.ts", root: "file:///data/workspaces/p%201", lib: "file:///opt/tandem/language/node_modules/typescript/lib/lib.es5.d.ts", text: "file: a" };
    expect(toClient(message)).toEqual({ uri: "file:///src/a.ts", root: "file:///", lib: "tandem-external:///opt/tandem/language/node_modules/typescript/lib/lib.es5.d.ts", text: "file: a" });
  });

  it("maps the editor's URIs back, and keeps keys (a rename's changes by URI) in step", () => {
    expect(toServer({ changes: { "file:///src/a.ts": [] }, uri: "tandem-external:///opt/x.d.ts" })).toEqual({ changes: { "file:///data/workspaces/p%201/src/a.ts": [] }, uri: "file:///opt/x.d.ts" });
    expect(toClient(toServer({ uri: "file:///src/b.ts" }))).toEqual({ uri: "file:///src/b.ts" });
  });
});
