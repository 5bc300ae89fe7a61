import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { TrpcProvider } from "@/components/trpc-provider";
import { ThemeApplier } from "@/components/ui/theme";
// The global style sheets, in the order they cascade: the light theme's rules weigh as much as
// some of the IDE's (".search-box .icon-btn[aria-pressed]") and of its panels'
// (".preview-toolbar .icon-btn:disabled"), so the later sheet wins each tie, as in one file.
import "./globals.css";
import "./ide.css";
import "./light-theme.css";
import "./ide-panels.css";
import "./inbox.css";
// Monaco's icon font face, declared with the first screen's sheets. Monaco's own sheets declare it
// (and come in after the first paint, with its code); a font face added to a page that is already
// laid out has the browser resolve every element's fonts again, and on a cold load that took its
// font service 76-205 ms in one synchronous call, right as the first file was clicked. Declared
// here, the editor's chunks no longer carry it (the bundler leaves out what the page has already).
import "@/node_modules/monaco-editor/esm/vs/base/browser/ui/codicons/codicon/codicon.css";

export const metadata: Metadata = {
  title: "Tandem",
  description: "A browser IDE where a team and a coding agent work on code together.",
  // Files of public/, served with their caching by server/http/static-assets.ts. The tab's icon is
  // the .ico's bitmaps (16, 32 and 48 px): offered an SVG, Chromium fetched it on every page load
  // and drew it in a document of its own on the page's main thread (17 ms on a reload, just as the
  // file's text showed). The SVG stays the installed app's (manifest.webmanifest).
  icons: {
    icon: [{ url: "/favicon.ico", sizes: "16x16 32x32 48x48" }],
    apple: "/apple-touch-icon.png",
  },
  manifest: "/manifest.webmanifest",
};

export const viewport: Viewport = { colorScheme: "dark", themeColor: "#1e1e1e" };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Reading the request makes every page render per request, so proxy.ts's CSP nonce reaches Next's scripts.
  await headers();
  return (
    <html lang="en">
      <body>
        <ThemeApplier />
        <TrpcProvider>{children}</TrpcProvider>
      </body>
    </html>
  );
}
