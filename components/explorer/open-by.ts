"use client";

import { useQuery } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useMemo, useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { colorOf } from "@/lib/live-doc-protocol";

export type OpenBy = { name: string; color: string };

export type OpenFilesPresence = {
  /** The others who have this file open live. */
  file(path: string): OpenBy[];
  /** The others who have a file under this folder open, each with those files (for a collapsed folder). */
  folder(path: string): (OpenBy & { files: string[] })[];
};

const NOBODY: OpenFilesPresence = { file: () => [], folder: () => [] };

/**
 * Who else has which of the project's files open live (fs.presence, across instances), for the
 * explorer's initials; off in a session's own tree, whose files are not live.
 */
export function useOpenFilesPresence(projectId: string, enabled: boolean): OpenFilesPresence {
  const trpc = useTRPC();
  const me = useQuery(trpc.account.status.queryOptions()).data?.user?.id;
  const [entries, setEntries] = useState<{ userId: string | null; name: string; place?: string }[]>([]);
  useSubscription(trpc.fs.presence.subscriptionOptions({ projectId }, { enabled, onData: setEntries }));
  return useMemo(() => {
    const others = entries.filter((entry) => entry.place && entry.userId && entry.userId !== me);
    if (!enabled || others.length === 0) return NOBODY;
    const byFile = new Map<string, Map<string, OpenBy>>();
    for (const entry of others) {
      const people = byFile.get(entry.place!) ?? new Map<string, OpenBy>();
      people.set(entry.userId!, { name: entry.name, color: colorOf(entry.userId!) });
      byFile.set(entry.place!, people);
    }
    const sorted = (people: Iterable<OpenBy>) => [...people].sort((a, b) => a.name.localeCompare(b.name));
    return {
      file: (path) => sorted(byFile.get(path)?.values() ?? []),
      folder(path) {
        const people = new Map<string, OpenBy & { files: string[] }>();
        for (const [file, openers] of byFile) {
          if (!file.startsWith(`${path}/`)) continue;
          for (const [userId, person] of openers) {
            const seen = people.get(userId) ?? { ...person, files: [] };
            seen.files.push(file.slice(path.length + 1));
            people.set(userId, seen);
          }
        }
        return sorted(people.values()) as (OpenBy & { files: string[] })[];
      },
    };
  }, [entries, me, enabled]);
}
