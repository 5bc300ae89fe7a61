/// <reference lib="webworker" />
import { PathIndex, type QuickOpenReply, type QuickOpenRequest } from "./quick-open";

// Quick open's matching, off the page's main thread: it holds the workspace's paths (sent once,
// then kept current by file changes) and ranks them per key, so typing never waits for it.

const index = new PathIndex();

self.onmessage = (event: MessageEvent<QuickOpenRequest>) => {
  const request = event.data;
  if (request.type === "files") index.reset(request.files);
  else if (request.type === "changes") index.apply(request.changes);
  else {
    const reply: QuickOpenReply = {
      id: request.id,
      matches: index.rank(request.query, { recent: request.recent, limit: request.limit }),
    };
    self.postMessage(reply);
  }
};
