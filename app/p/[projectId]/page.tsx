import { headers } from "next/headers";
import { IdeView } from "@/components/ide/ide-view";
import { firstScreenScript } from "@/lib/first-screen";
import { MAIN_TREE } from "@/lib/trees";

export default async function ProjectPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <>
      {/* Asks for the first screen's data while the scripts load (lib/first-screen.ts). */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own functions' source; the values in it are JSON with "<" escaped */}
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: firstScreenScript(projectId, MAIN_TREE) }} />
      <IdeView projectId={projectId} />
    </>
  );
}
