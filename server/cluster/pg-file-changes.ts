import { z } from "zod";
import { fileChangeSchema, type FileChange } from "@/lib/fs-schemas";
import { createFileChanges, type FileChanges } from "@/server/bus/file-changes";
import { MAX_PAYLOAD_BYTES, type NotifyHub } from "@/server/cluster/pg-notify";

// File changes across instances. A batch is sent as it is, in as many NOTIFYs as it takes to stay
// under Postgres' payload limit: "project P changed: these paths", in order. Unlike session events
// there is no table to read them back from (the disk is the state), so a receiver delivers each
// chunk as it comes, and after a lost connection tells every viewer to read the files again.

const messageSchema = z.object({ p: z.string(), c: z.array(fileChangeSchema).min(1) });

/** Room for the envelope the hub adds (`{"i":"<uuid>","m":...}`) and the project id. */
const ENVELOPE_BYTES = 200;

/** `changes` in consecutive chunks whose payloads for `projectId` each stay under the NOTIFY limit. */
export function chunkChanges(
  projectId: string,
  changes: readonly FileChange[],
  limit = MAX_PAYLOAD_BYTES,
): FileChange[][] {
  const room = limit - ENVELOPE_BYTES - Buffer.byteLength(projectId);
  const chunks: FileChange[][] = [];
  let chunk: FileChange[] = [];
  let size = 0;
  for (const change of changes) {
    const bytes = Buffer.byteLength(JSON.stringify(change)) + 1;
    if (chunk.length && size + bytes > room) {
      chunks.push(chunk);
      chunk = [];
      size = 0;
    }
    chunk.push(change);
    size += bytes;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

export function createPgFileChanges(hub: NotifyHub, log: (line: string) => void): FileChanges {
  const local = createFileChanges();
  hub.listen("tandem_files", (payload) => {
    const message = messageSchema.safeParse(payload);
    if (message.success) local.publish(message.data.p, message.data.c);
  });
  hub.onReconnect(() => local.rereadAll());
  return {
    publish(projectId, changes) {
      local.publish(projectId, changes);
      for (const chunk of chunkChanges(projectId, changes)) {
        // A single change is a path of at most PATH_MAX bytes: it always fits.
        if (!hub.publish("tandem_files", { p: projectId, c: chunk }))
          log(`file changes: a change in project ${projectId} was too large to send`);
      }
    },
    subscribe: (projectId, listener) => local.subscribe(projectId, listener),
  };
}
