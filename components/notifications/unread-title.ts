"use client";

import { useEffect } from "react";

// "(3) Tandem": the unread count in front of whatever title the page sets, kept there when the
// page changes its title.

const PREFIX = /^\(\d+\+?\) /;

export function useUnreadTitle(unread: number) {
  useEffect(() => {
    const apply = () => {
      const base = document.title.replace(PREFIX, "");
      const next = unread > 0 ? `(${unread > 99 ? "99+" : unread}) ${base}` : base;
      if (document.title !== next) document.title = next;
    };
    apply();
    const title = document.querySelector("title");
    const observer = title ? new MutationObserver(apply) : null;
    if (title) observer?.observe(title, { childList: true });
    return () => {
      observer?.disconnect();
      document.title = document.title.replace(PREFIX, "");
    };
  }, [unread]);
}
