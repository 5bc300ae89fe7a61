"use client";

import { useDismiss } from "@/components/ui/use-dismiss";
import Link from "next/link";
import { useRef, useState } from "react";
import { authClient } from "@/components/auth/auth-client";

type UserMenuProps = { user: { name: string; email: string; role: string } };

export function UserMenu({ user }: UserMenuProps) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useDismiss(ref, open, () => setOpen(false));

  async function signOut() {
    await authClient.signOut().catch(() => undefined);
    window.location.assign("/sign-in");
  }

  return (
    <div className="user-menu" ref={ref}>
      <button
        type="button"
        className="btn btn-ghost btn-sm"
        onClick={() => setOpen(!open)}
        aria-haspopup="menu"
        aria-expanded={open}
        data-testid="user-menu"
      >
        {user.name || user.email} ▾
      </button>
      {open && (
        <div className="menu" role="menu">
          <div className="menu-label">
            {user.email}
            {user.role === "admin" && " · admin"}
          </div>
          <Link className="menu-item" href="/" role="menuitem">
            Projects
          </Link>
          <Link className="menu-item" href="/account" role="menuitem" data-testid="menu-account">
            Account and git credentials
          </Link>
          {user.role === "admin" && (
            <Link className="menu-item" href="/admin" role="menuitem" data-testid="menu-admin">
              Admin settings
            </Link>
          )}
          <div className="menu-separator" />
          <button type="button" className="menu-item" role="menuitem" onClick={signOut} data-testid="sign-out">
            Sign out
          </button>
        </div>
      )}
    </div>
  );
}
