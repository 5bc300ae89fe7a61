import type { RequestMessage } from "vscode-jsonrpc/node";
import { settingAt } from "./client-capabilities";
import { uriOfPath } from "./documents";
import type { LanguageServerSpec } from "./registry";

/**
 * The answer to a language server's own request to its client, which the hub is: settings from
 * the registry, the workspace as its one folder, the rest acknowledged.
 */
export function answerServerRequest(spec: LanguageServerSpec, root: string, message: RequestMessage): unknown {
  if (message.method === "workspace/configuration") {
    const items = (message.params as { items?: { section?: string }[] } | undefined)?.items ?? [];
    return items.map((item) => settingAt(spec.settings ?? {}, item.section));
  }
  if (message.method === "workspace/workspaceFolders") return [{ uri: uriOfPath(root, ""), name: "workspace" }];
  // Edits reach files through Tandem's write path (the rename tool and the editor), never from the server.
  if (message.method === "workspace/applyEdit")
    return { applied: false, failureReason: "Apply edits through the editor." };
  return null;
}
