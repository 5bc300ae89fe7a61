"use client";

import { AppShell } from "@/components/auth/app-shell";
import { AdminUsage } from "@/components/usage/admin-usage";

export default function UsagePage() {
  return <AppShell>{(user) => <AdminUsage role={user.role} />}</AppShell>;
}
