import type { NetworkPolicy } from "@/lib/egress-policy";
import type { Config } from "@/server/env/config";
import { previewTarget } from "@/server/preview/preview-host";
import type { Previews } from "@/server/preview/previews";
import type { AdmitOptions } from "@/server/sandbox/admit-host";
import { findChromium } from "@/server/tools/agent-browser/chromium";
import { createBrowsers, type Browsers } from "@/server/tools/agent-browser/session-browsers";

// The agent's browser as this server offers it: the Chromium configuration names or that is
// found, the project's previews as the only way to the workspaces' servers, Tandem's own
// addresses never, everything else under the project's network policy. Without a Chromium the
// browser tool is not offered, and start-up says why.

export function createAgentBrowsers(input: {
  config: Pick<Config, "browserChromium" | "publicUrl" | "port" | "host" | "preview">;
  previews: Previews;
  policy(projectId: string): Promise<NetworkPolicy>;
  log(line: string): void;
  /** Tests: names resolved to fixed addresses. */
  admit?: AdmitOptions;
  idleMs?: number;
}): Browsers | undefined {
  const { config, previews } = input;
  const found = findChromium(config.browserChromium);
  if ("missing" in found) {
    input.log(`agent browser: off, ${found.missing}`);
    return undefined;
  }
  input.log(`agent browser: ${found.path}`);
  const loopback = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const tandemHosts = [
    ...(config.publicUrl ? [new URL(config.publicUrl).host, new URL(config.publicUrl).hostname] : []),
    ...(config.port ? ["localhost", "127.0.0.1", "::1", loopback].map((h) => `${h}:${config.port}`) : []),
  ];
  return createBrowsers({
    chromium: found.path,
    idleMs: input.idleMs,
    previewSession: (projectId, port, userId, sessionId) => previews.sessionFor(projectId, port, userId, sessionId),
    gate: {
      policy: input.policy,
      previewTarget: (host) => {
        const target = previewTarget(host, previews.domain);
        if (target) return target;
        const name = host.replace(/:\d+$/, "");
        return name === previews.domain || name.endsWith(`.${previews.domain}`) ? "other" : null;
      },
      previewAddress: (hostname, port) => {
        // Behind a configured domain the preview is reached as anyone reaches it; else on this server's preview port.
        if (config.preview.domain) return { host: hostname, port };
        const listening = previews.port();
        return listening !== null && port === listening ? { host: loopback, port: listening } : null;
      },
      tandemHosts: () => tandemHosts,
      ...(input.admit ? { admit: input.admit } : {}),
    },
  });
}
