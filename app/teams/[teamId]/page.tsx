"use client";

import { use } from "react";
import { TeamSettings } from "@/components/team/team-settings";
import { AppShell } from "@/components/auth/app-shell";

export default function TeamPage({ params }: { params: Promise<{ teamId: string }> }) {
  const { teamId } = use(params);
  return <AppShell>{(user) => <TeamSettings teamId={teamId} me={user.id} />}</AppShell>;
}
