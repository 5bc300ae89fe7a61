import type { NotificationMessage } from "vscode-jsonrpc/node";
import { expect, it } from "vitest";
import { containedInWorkspace } from "./client-messages";
import { uriOfPath } from "./documents";

const root = "/data/workspaces/p1";
const didOpen = (uri: string) =>
  ({
    jsonrpc: "2.0",
    method: "textDocument/didOpen",
    params: { textDocument: { uri, text: "x" } },
  }) as NotificationMessage;

it("gives a workspace document its one spelling, and refuses any other", () => {
  const contained = containedInWorkspace(root, didOpen("file:///data/workspaces/p1/src/%61.ts"));
  expect(contained?.params).toEqual({
    textDocument: {
      uri: uriOfPath(root, "src/a.ts"),
      text: "x",
    },
  });
  for (const uri of ["file:///etc/passwd", "file:///data/workspaces/p1/%2e%2e/p2/a.ts", "untitled:1", root])
    expect(containedInWorkspace(root, didOpen(uri)), uri).toBeNull();
  // The workspace itself is no document.
  expect(containedInWorkspace(root, didOpen(uriOfPath(root, "")))).toBeNull();
  // A message naming no document passes as it is.
  const exit = { jsonrpc: "2.0", method: "exit" } as NotificationMessage;
  expect(containedInWorkspace(root, exit)).toBe(exit);
});
