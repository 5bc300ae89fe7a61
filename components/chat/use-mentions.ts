"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useRef, useState } from "react";
import type { CompletionItem, CompletionTrigger } from "@/components/chat/composer-completion";
import { useTRPC } from "@/components/trpc-provider";
import { PathIndex } from "@/components/ui/quick-open";

// `@` completion over the workspace's files and folders (the list and the ranking quick open
// uses), and the mentions a message holds: `@path` of a known file or folder, or `@http(s)://...`.

const URL_MENTION = /^https?:\/\/\S+$/i;

/**
 * The files of a list and the folders they are in (each with a trailing slash). Each folder is cut
 * at its slash, not joined again from the path's parts: on 29,000 files that took 80-130 ms of the
 * page's main thread, this 20-40.
 */
function entriesOf(list: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of list)
    for (let at = file.indexOf("/"); at !== -1; at = file.indexOf("/", at + 1)) folders.add(file.slice(0, at + 1));
  return [...folders, ...list];
}

/** The mentions in a message's text, in order, once each: URLs, and the files and folders `known` holds. */
function mentionsIn(text: string, known: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\s)@(\S+)/g)) {
    const ref = match[1]!.replace(/[.,;:!?)]+$/, "");
    if ((URL_MENTION.test(ref) || known.has(ref)) && !found.includes(ref)) found.push(ref);
  }
  return found;
}

const knownOf = (entries: readonly string[]) => new Set(entries.map((e) => e.replace(/\/$/, "")));

/** `enabled`: whether this person may write messages here (a view link's guest may not list files). */
export function useMentions(projectId: string, enabled = true) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Read once a message has an `@` in it, afresh each time a composer needs it, and again on `@` when
  // over a second old: files come and go (a terminal, the agent), and a copy cached when the page
  // loaded must not stand for them. Not as the composer appears: every page load then listed the
  // whole workspace (a megabyte on a large repository) while its first screen was being served.
  const [wanted, setWanted] = useState(false);
  // Asked for from render (the composer asks for completions and chips as it draws): after it.
  const want = () => {
    if (!wanted) setTimeout(() => setWanted(true), 0);
  };
  const asked = useRef(0);
  const options = trpc.fs.files.queryOptions({ projectId });
  const files = useQuery({ ...options, enabled: enabled && wanted, staleTime: 1_000, refetchOnMount: "always" });
  // The list quick open read comes through the same cache: turned into entries only once wanted,
  // not (on a large repository, for ~150 ms of the page's main thread) as someone types in quick open.
  const data = wanted ? files.data : undefined;
  const entries = useMemo(() => entriesOf(data?.files ?? []), [data]);
  const known = useMemo(() => knownOf(entries), [entries]);

  const complete = (trigger: CompletionTrigger): CompletionItem[] => {
    if (trigger.char !== "@") return [];
    want();
    // Typing `@` asks again for a list older than a second, at most once a second (a read still
    // under way, or retrying after a failure, is started over); after this render.
    if (enabled && wanted && Date.now() - Math.max(files.dataUpdatedAt, asked.current) > 1_000) {
      asked.current = Date.now();
      setTimeout(() => void files.refetch(), 0);
    }
    if (URL_MENTION.test(trigger.query))
      return [
        {
          key: `url:${trigger.query}`,
          label: `@${trigger.query}`,
          detail: "Fetch this page with the message",
          insert: `@${trigger.query} `,
        },
      ];
    // A fresh index per key, as quick open ranked before its worker: one kept between keys answered
    // from what the last key matched, and completion found nothing (14-mentions).
    return new PathIndex(entries).rank(trigger.query, { limit: 20 }).map((m) => {
      const folder = m.path.endsWith("/");
      const ref = folder ? m.path.slice(0, -1) : m.path;
      return {
        key: m.path,
        label: `@${ref}`,
        detail: folder ? "Folder: its files are attached" : "File: attached with the message",
        insert: `@${ref} `,
      };
    });
  };

  /** The mentions in a message's text as typed, in order, once each (its chips). */
  const mentionsOf = (text: string): string[] => {
    if (text.includes("@")) want();
    return mentionsIn(text, known);
  };
  /** The same, of a message being sent: the workspace's files read first if they are not yet (pasted text, sent at once). */
  const mentionsToSend = async (text: string): Promise<string[]> => {
    if (!text.includes("@") || !enabled || data) return mentionsIn(text, known);
    const list = files.data ?? (await queryClient.fetchQuery({ ...options, staleTime: 1_000 }).catch(() => null));
    return mentionsIn(text, list ? knownOf(entriesOf(list.files)) : known);
  };
  return { complete, mentionsOf, mentionsToSend };
}
