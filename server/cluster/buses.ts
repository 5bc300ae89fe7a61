import type { Db } from "@/server/db/client";
import { createAccessChanges, type AccessChanges } from "@/server/bus/access-changes";
import { createBoardChanges, type BoardChanges } from "@/server/bus/board-changes";
import { createInboxChanges, type InboxChanges } from "@/server/bus/inbox-changes";
import type { FileChanges } from "@/server/bus/file-changes";
import { createLinkRevocations, type LinkRevocations } from "@/server/bus/link-revocations";
import { createPresence, type Presence } from "@/server/bus/presence";
import { createInProcessBus, type SessionBus } from "@/server/bus/session-bus";
import { createPgAccessChanges, createPgLinkRevocations } from "@/server/cluster/pg-access-changes";
import { createPgBoardChanges } from "@/server/cluster/pg-board-changes";
import { createPgInboxChanges } from "@/server/cluster/pg-inbox-changes";
import { createPgFileChanges } from "@/server/cluster/pg-file-changes";
import { connectNotifyHub } from "@/server/cluster/pg-notify";
import { createPgPresence } from "@/server/cluster/pg-presence";
import { createPgSessionBus } from "@/server/cluster/pg-session-bus";

// The live buses of one instance: in-process (one instance, the embedded database, tests), or
// through Postgres LISTEN/NOTIFY so that every instance on the database sees the others' events,
// access changes, revocations, presence and typing, board changes, inbox changes (config.bus, TANDEM_BUS), and file changes (a
// single instance watches its disk itself: no file-change bus in-process).

export type Buses = {
  sessionBus: SessionBus;
  accessChanges: AccessChanges;
  linkRevocations: LinkRevocations;
  presence: Presence;
  boardChanges: BoardChanges;
  inboxChanges: InboxChanges;
  fileChanges: FileChanges | null;
  close(): Promise<void>;
};

export async function createBuses(options: {
  kind: "memory" | "postgres";
  databaseUrl: string;
  db: Db;
  log: (line: string) => void;
}): Promise<Buses> {
  if (options.kind === "memory") {
    return {
      sessionBus: createInProcessBus(),
      accessChanges: createAccessChanges(),
      linkRevocations: createLinkRevocations(),
      presence: createPresence(),
      boardChanges: createBoardChanges(),
      inboxChanges: createInboxChanges(),
      fileChanges: null,
      close: async () => {},
    };
  }
  const hub = await connectNotifyHub(options.databaseUrl, options.log);
  return {
    sessionBus: createPgSessionBus(hub, options.db),
    accessChanges: createPgAccessChanges(hub),
    linkRevocations: createPgLinkRevocations(hub, options.db),
    presence: createPgPresence(hub),
    boardChanges: createPgBoardChanges(hub),
    inboxChanges: createPgInboxChanges(hub),
    fileChanges: createPgFileChanges(hub, options.log),
    close: () => hub.close(),
  };
}
