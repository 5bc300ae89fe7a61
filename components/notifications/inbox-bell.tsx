"use client";

import { useDismiss } from "@/components/ui/use-dismiss";
import type { inferRouterOutputs } from "@trpc/server";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "@/components/trpc-provider";
import { BellIcon } from "@/components/ui/icons";
import { useUnreadTitle } from "@/components/notifications/unread-title";
import { showBrowserNotification } from "@/components/notifications/browser-notifications";

type Notification = inferRouterOutputs<AppRouter>["notification"]["list"][number];

const ago = (d: Date) => {
  const s = Math.max(0, Math.round((Date.now() - new Date(d).getTime()) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return new Date(d).toLocaleDateString();
};

/**
 * The header's bell: the unread count, live (notification.watch, across instances), also in the
 * tab's title; the inbox opens under it. A new notification while the tab is hidden becomes a
 * browser notification when the person chose that for its kind and the browser allows it.
 */
export function InboxBell() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [unread, setUnread] = useState(0);
  const lastNewest = useRef<string | null | undefined>(undefined);
  const ref = useRef<HTMLDivElement>(null);
  const settings = useQuery(trpc.notification.settings.queryOptions());
  const list = useQuery(trpc.notification.list.queryOptions({ limit: 30 }, { enabled: open }));
  const markRead = useMutation(
    trpc.notification.markRead.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries(trpc.notification.list.queryFilter()),
    }),
  );
  useUnreadTitle(unread);

  useSubscription(
    trpc.notification.watch.subscriptionOptions(undefined, {
      onData: (update) => {
        setUnread(update.unread);
        void queryClient.invalidateQueries(trpc.notification.list.queryFilter());
        const newest = update.newest;
        // The first update is what was there already: only later arrivals are announced.
        if (lastNewest.current !== undefined && newest && newest.id !== lastNewest.current) {
          if (settings.data?.prefs[newest.kind]?.browser) showBrowserNotification(newest);
        }
        lastNewest.current = newest?.id ?? lastNewest.current ?? null;
      },
    }),
  );

  useDismiss(ref, open, () => setOpen(false));

  function follow(n: Notification) {
    if (!n.readAt) markRead.mutate({ ids: [n.id] });
    setOpen(false);
    router.push(n.link);
  }

  return (
    <div className="user-menu inbox" ref={ref}>
      <button
        type="button"
        className="icon-btn inbox-bell"
        onClick={() => setOpen(!open)}
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-label={unread ? `Notifications: ${unread} unread` : "Notifications"}
        title="Notifications"
        data-testid="inbox-bell"
      >
        <BellIcon />
        {unread > 0 && (
          <span className="inbox-count" data-testid="inbox-count">
            {unread > 99 ? "99+" : unread}
          </span>
        )}
      </button>
      {open && (
        <div className="menu inbox-panel" role="dialog" aria-label="Notifications" data-testid="inbox-panel">
          <div className="inbox-head">
            <strong>Notifications</strong>
            <span className="spacer" />
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              disabled={unread === 0}
              onClick={() => markRead.mutate({})}
              data-testid="inbox-mark-all"
            >
              Mark all read
            </button>
            <a className="btn btn-ghost btn-sm" href="/account#notifications" data-testid="inbox-settings">
              Settings
            </a>
          </div>
          {!list.data ? (
            <p className="hint inbox-empty">Loading…</p>
          ) : list.data.length === 0 ? (
            <p className="hint inbox-empty">
              Nothing yet. Agents waiting for you, sessions ending and mentions show here.
            </p>
          ) : (
            <ul className="inbox-list">
              {list.data.map((n) => (
                <li key={n.id}>
                  <button
                    type="button"
                    className={`inbox-item${n.readAt ? "" : " unread"}`}
                    onClick={() => follow(n)}
                    data-testid="inbox-item"
                    data-kind={n.kind}
                  >
                    <span className="inbox-title">{n.title}</span>
                    {n.body && <span className="inbox-body">{n.body}</span>}
                    <span className="inbox-when">{ago(n.createdAt)}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
