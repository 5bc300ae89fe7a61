import { describe, expect, it } from "vitest";
import { pathOfUri, uriOfPath } from "./documents";

describe("pathOfUri: the one way a URI becomes a workspace path", () => {
  const root = "/data/workspaces/p 1";

  it("maps the workspace's own files, in any escaping a server or an editor uses", () => {
    expect(pathOfUri(root, uriOfPath(root, "src/a b.ts"))).toBe("src/a b.ts");
    expect(pathOfUri(root, "file:///data/workspaces/p%201/src/%61.ts")).toBe("src/a.ts");
    expect(pathOfUri(root, "file:///data/workspaces/p%201/node_modules/x/index.d.ts")).toBe(
      "node_modules/x/index.d.ts",
    );
    expect(pathOfUri(root, "file:///data/workspaces/p%201/")).toBe("");
  });

  it("refuses every other scheme, host, climb, encoded separator or NUL", () => {
    const refused = [
      "tandem-external:///etc/passwd",
      "tandem-external:///data/workspaces/p%201/src/a.ts",
      "untitled:Untitled-1",
      "file:///etc/passwd",
      "file:///data/workspaces/p%201/../p%202/secret.ts",
      "file:///data/workspaces/p%201/src/../../p%202/secret.ts",
      "file:///data/workspaces/p%201/%2e%2e/p%202/secret.ts",
      "file:///data/workspaces/p%201/%2E%2E%2Fp%202/secret.ts",
      "file:///data/workspaces/p%201/src%2f..%2f..%2fp%202/secret.ts",
      "file:///data/workspaces/p%201/./src/a.ts",
      "file:///data/workspaces/p%201//src/a.ts",
      "file:///data/workspaces/p%201/a.ts%00.png",
      "file:///data/workspaces/p%201/a.ts\0",
      "file:///data/workspaces/p%201/bad%zz.ts",
      "file://host/data/workspaces/p%201/a.ts",
      "file://localhost/data/workspaces/p%201/a.ts",
      "file:///data/workspaces/p%201/a.ts?x=1",
      "file:///data/workspaces/p%201/a.ts#x",
      "file:///data/workspaces/p%201-evil/a.ts",
      "FILE:///data/workspaces/p%201/a.ts",
      "file:/data/workspaces/p%201/a.ts",
    ];
    for (const uri of refused) expect(pathOfUri(root, uri), uri).toBeNull();
  });
});
