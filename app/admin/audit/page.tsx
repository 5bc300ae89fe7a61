"use client";

import { AuditLog } from "@/components/audit/audit-log";
import { AppShell } from "@/components/auth/app-shell";

export default function AuditPage() {
  return <AppShell>{(user) => <AuditLog role={user.role} />}</AppShell>;
}
