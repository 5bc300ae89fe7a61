"use client";

import { AdminSettings } from "@/components/auth/admin-settings";
import { AppShell } from "@/components/auth/app-shell";

export default function AdminPage() {
  return <AppShell>{(user) => <AdminSettings role={user.role} selfId={user.id} />}</AppShell>;
}
