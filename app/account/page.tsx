"use client";

import { use } from "react";
import { AccountSettings } from "@/components/auth/account-settings";
import { AppShell } from "@/components/auth/app-shell";

export default function AccountPage({ searchParams }: { searchParams: Promise<{ host?: string; kind?: string }> }) {
  const query = use(searchParams);
  return <AppShell>{(user) => <AccountSettings user={user} host={query.host} kind={query.kind} />}</AppShell>;
}
