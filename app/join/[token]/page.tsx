import type { Metadata } from "next";
import { JoinTeam } from "@/components/team/join-team";
import { Brand } from "@/components/ui/brand";

// The link's token is a secret: a search engine that finds the link anyway must not list the page.
export const metadata: Metadata = { robots: { index: false, follow: false } };

export default async function JoinPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <>
      <header className="app-header">
        <Brand />
      </header>
      <main className="app-main">
        <JoinTeam token={token} />
      </main>
    </>
  );
}
