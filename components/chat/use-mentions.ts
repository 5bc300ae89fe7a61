"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo, useRef } from "react";
import type { CompletionItem, CompletionTrigger } from "@/components/chat/composer-completion";
import { useTRPC } from "@/components/trpc-provider";
import { PathIndex } from "@/components/ui/quick-open";

// `@` completion over the workspace's files and folders (the list and the ranking quick open
// uses), and the mentions a message holds: `@path` of a known file or folder, or `@http(s)://...`.

const URL_MENTION = /^https?:\/\/\S+$/i;

/** `enabled`: whether this person may write messages here (a view link's guest may not list files). */
export function useMentions(projectId: string, enabled = true) {
  const trpc = useTRPC();
  // Read afresh whenever a composer appears, and again on `@` when over a second old: files come and
  // go (a terminal, the agent), and a copy cached when the page loaded must not stand for them.
  const asked = useRef(0);
  const files = useQuery(
    trpc.fs.files.queryOptions({ projectId }, { enabled, staleTime: 1_000, refetchOnMount: "always" }),
  );
  const entries = useMemo(() => {
    const list = files.data?.files ?? [];
    const folders = new Set<string>();
    for (const file of list) {
      const parts = file.split("/");
      for (let i = 1; i < parts.length; i++) folders.add(`${parts.slice(0, i).join("/")}/`);
    }
    return [...folders, ...list];
  }, [files.data]);
  const known = useMemo(() => new Set(entries.map((e) => e.replace(/\/$/, ""))), [entries]);

  const complete = (trigger: CompletionTrigger): CompletionItem[] => {
    if (trigger.char !== "@") return [];
    // Typing `@` asks again for a list older than a second, at most once a second (a read still
    // under way, or retrying after a failure, is started over); after this render.
    if (enabled && Date.now() - Math.max(files.dataUpdatedAt, asked.current) > 1_000) {
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

  /** The mentions in a message's text, in order, once each. */
  const mentionsOf = (text: string): string[] => {
    const found: string[] = [];
    for (const match of text.matchAll(/(?:^|\s)@(\S+)/g)) {
      const ref = match[1]!.replace(/[.,;:!?)]+$/, "");
      if ((URL_MENTION.test(ref) || known.has(ref)) && !found.includes(ref)) found.push(ref);
    }
    return found;
  };
  return { complete, mentionsOf };
}
