"use client";

import { use } from "react";
import { AppShell } from "@/components/auth/app-shell";
import { TeamUsage } from "@/components/usage/team-usage";

export default function TeamUsagePage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = use(params);
  return <AppShell>{() => <TeamUsage teamId={teamId} />}</AppShell>;
}
