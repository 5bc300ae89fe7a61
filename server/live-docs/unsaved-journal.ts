import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

// Unsaved typing kept on the server's data folder (shared by a cluster's instances, outside every
// workspace), a few seconds behind the live document. The instance that takes a project over from
// a holder that died starts the document from it, as the same CRDT (the same epoch), so editors
// that reconnect merge in what they typed since, and a restart keeps unsaved typing too.

/** A document as it was: its Yjs state, and the disk text and version it was last synced with. */
export type JournalEntry = { epoch: string; version: string | null; diskText: string; update: Uint8Array };

export interface UnsavedJournal {
  read(projectId: string, filePath: string): Promise<JournalEntry | null>;
  write(projectId: string, filePath: string, entry: JournalEntry): Promise<void>;
  remove(projectId: string, filePath: string): Promise<void>;
}

const entrySchema = z.object({
  epoch: z.string().max(100),
  version: z.string().max(200).nullable(),
  diskText: z.string(),
  update: z.string(),
});

export function createUnsavedJournal(dataDir: string): UnsavedJournal {
  const root = path.join(dataDir, "live-docs");
  // Project ids are the database's UUIDs; paths are hashed, so no name from a workspace reaches the file system.
  const fileOf = (projectId: string, filePath: string) => {
    if (!/^[0-9a-f-]{36}$/i.test(projectId)) throw new Error("not a project id");
    return path.join(root, projectId, `${createHash("sha256").update(filePath).digest("hex")}.json`);
  };
  return {
    async read(projectId, filePath) {
      const text = await fs.readFile(fileOf(projectId, filePath), "utf8").catch(() => null);
      if (text === null) return null;
      const parsed = entrySchema.safeParse(JSON.parse(text));
      if (!parsed.success) return null;
      return { ...parsed.data, update: new Uint8Array(Buffer.from(parsed.data.update, "base64")) };
    },
    async write(projectId, filePath, entry) {
      const file = fileOf(projectId, filePath);
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const temporary = `${file}.${randomUUID()}.tmp`;
      const body = JSON.stringify({ ...entry, update: Buffer.from(entry.update).toString("base64") });
      await fs.writeFile(temporary, body, { mode: 0o600 });
      await fs.rename(temporary, file);
    },
    async remove(projectId, filePath) {
      await fs.rm(fileOf(projectId, filePath), { force: true });
    },
  };
}
