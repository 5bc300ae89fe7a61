import { IdeView } from "@/components/ide/ide-view";

export default async function ProjectPage({ params }: { params: Promise<{ projectId: string }> }) {
  const { projectId } = await params;
  return <IdeView projectId={projectId} />;
}
