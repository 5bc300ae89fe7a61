import type { Metadata } from "next";
import { SharePage } from "@/components/ide/share-page";

// The link's token is a secret: a search engine that finds the link anyway must not list the page.
export const metadata: Metadata = { robots: { index: false, follow: false } };

export default async function ShareLinkPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <SharePage token={token} />;
}
