"use client";

import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter } from "next/navigation";
import { useEffect } from "react";
import { useTRPC } from "@/components/trpc-provider";

/** Who is signed in, and how sign-up works here. */
export function useAccountStatus() {
  const trpc = useTRPC();
  return useQuery(trpc.account.status.queryOptions(undefined, { staleTime: 30_000 }));
}

/** The signed-in user; sends anyone else to /sign-in (and back here afterwards). */
export function useRequireUser() {
  const status = useAccountStatus();
  const router = useRouter();
  const pathname = usePathname();
  const user = status.data?.user ?? null;

  useEffect(() => {
    if (status.data && !status.data.user) router.replace(`/sign-in?next=${encodeURIComponent(pathname)}`);
  }, [status.data, router, pathname]);

  return { user, loading: status.isPending, error: status.error };
}

/** Where to go after signing in: the `next` parameter when it is a path on this site. */
export function afterSignInPath(next: string | null): string {
  return next?.startsWith("/") && !next.startsWith("//") ? next : "/";
}
