"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc-provider";

const KEY = "tandem.team";

/** The teams the user is in and the one they work in now (remembered in this browser). */
export function useCurrentTeam() {
  const trpc = useTRPC();
  const teams = useQuery(trpc.team.list.queryOptions());
  const [chosen, setChosen] = useState<string | null>(null);
  useEffect(() => setChosen(window.localStorage.getItem(KEY)), []);
  const list = teams.data ?? [];
  const current = list.find((t) => t.id === chosen) ?? list[0] ?? null;
  const choose = (teamId: string) => {
    window.localStorage.setItem(KEY, teamId);
    setChosen(teamId);
  };
  return { teams, list, current, choose };
}
