"use client";

import { useEffect, useRef } from "react";

// "(3) Tandem": the inbox's unread count in front of the title the page sets. A page that puts a
// count of its own there (the IDE's "(1) Waiting for you · …") keeps it: what waits in the
// project is in the inbox too, and one count in a tab is enough. Kept when the page changes its title.

const COUNTED = /^\(\d+\+?\) /;

export function useUnreadTitle(unread: number) {
  const written = useRef<{ title: string; base: string } | null>(null);
  useEffect(() => {
    const apply = () => {
      const now = document.title;
      // The page's own title: what it set last, unless what is there is what this hook wrote.
      const base = written.current?.title === now ? written.current.base : now;
      const next = unread > 0 && !COUNTED.test(base) ? `(${unread > 99 ? "99+" : unread}) ${base}` : base;
      written.current = { title: next, base };
      if (now !== next) document.title = next;
    };
    apply();
    const title = document.querySelector("title");
    const observer = title ? new MutationObserver(apply) : null;
    if (title) observer?.observe(title, { childList: true });
    return () => {
      observer?.disconnect();
      if (written.current && document.title === written.current.title) document.title = written.current.base;
    };
  }, [unread]);
}
