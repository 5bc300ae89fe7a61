"use client";

import type { ReactNode } from "react";
import { useRequireUser } from "@/components/auth/use-account";
import { UserMenu } from "@/components/auth/user-menu";
import { InboxBell } from "@/components/notifications/inbox-bell";
import { Brand } from "@/components/ui/brand";

type AppUser = { id: string; name: string; email: string; role: string };

/** Header + content for the signed-in pages outside the IDE; waits until the user is known. */
export function AppShell({ children }: { children: (user: AppUser) => ReactNode }) {
  const { user, error } = useRequireUser();
  return (
    <>
      <header className="app-header">
        <Brand />
        <div className="spacer" />
        {user && <InboxBell />}
        {user && <UserMenu user={user} />}
      </header>
      <main className="app-main">
        {error ? (
          <div className="notice notice-error">Could not reach the server. Reload the page to try again.</div>
        ) : user ? (
          children(user)
        ) : (
          <p className="muted">Loading…</p>
        )}
      </main>
    </>
  );
}
