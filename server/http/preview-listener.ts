import http from "node:http";
import type { Services } from "@/server/api/context";
import { createPreviewHandlers } from "@/server/preview/preview-server";

/**
 * The previews' own server (server/preview): a port of its own, so a preview's origin is never
 * the IDE's. It connects to a port inside the project's workspace network; a server without
 * workspace networks (no bubblewrap, or not root) serves no previews, since its commands run in
 * the host's network, where a port could be anything of the host's.
 */
export async function listenPreviews(services: Services): Promise<http.Server> {
  const { previews, config } = services;
  const handlers = createPreviewHandlers({
    access: previews.access,
    domain: previews.domain,
    secure: previews.secure,
    admits: services.previewGate.admits,
    link: services.previewGate.link,
    onAccessEnd: services.previewGate.onAccessEnd,
    connect: async ({ projectId, port }) => {
      const networks = services.sandbox.networks;
      if (!networks) throw new Error("this server gives workspaces no network of their own");
      return networks.connect((await services.files.open(projectId)).root, port);
    },
  });
  const server = http.createServer((req, res) =>
    handlers.request(req, res).catch((error: unknown) => {
      console.error("preview:", error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }),
  );
  server.on("upgrade", (req, socket, head) => void handlers.upgrade(req, socket, head).catch(() => socket.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.preview.port, config.host, () => resolve());
  });
  const address = server.address();
  previews.listening(typeof address === "object" && address ? address.port : config.preview.port);
  return server;
}
