import { JoinTeam } from "@/components/team/join-team";
import { Brand } from "@/components/ui/brand";

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
