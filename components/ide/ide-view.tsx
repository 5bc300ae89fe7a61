"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import {
  OpenFilesProvider,
  useBuffersState,
  useFileBuffers,
  useTabsState,
} from "@/components/editor/open-files-context";
import { useRequireUser } from "@/components/auth/use-account";
import { InboxBell } from "@/components/notifications/inbox-bell";
import { UserMenu } from "@/components/auth/user-menu";
import { ExplorerProvider } from "@/components/explorer/explorer-context";
import { LanguageProvider } from "@/components/editor/language/language-session";
import { ProblemsStatus } from "@/components/editor/language/problems";
import { EnvironmentBanner } from "@/components/settings/environment-banner";
import { SymbolSearch } from "@/components/editor/language/symbol-search";
import { IdeLayout } from "@/components/ide/ide-layout";
import { GitProvider } from "@/components/git/git-context";
import { OpenSessionProvider } from "@/components/chat/open-session-context";
import { GitStatusBar } from "@/components/git/git-status-bar";
import { useFileChanges } from "@/components/ide/use-file-changes";
import { useFirstScreen } from "@/components/ide/use-first-screen";
import { preloadDeferredPanels } from "@/components/ide/deferred-panels";
import { editorCodeIn } from "@/components/ide/editor-area";
import { useTRPC } from "@/components/trpc-provider";
import { CommandPalette } from "@/components/ide/command-palette";
import { QuickOpenIndex } from "@/components/ui/quick-open-index";
import { CommandsProvider, useCommands } from "@/components/ui/commands";
import { errorCode, errorMessage } from "@/components/ui/error-message";
import { GearIcon } from "@/components/ui/icons";
import { useTheme } from "@/components/ui/theme";
import { TreeProvider } from "@/components/ui/tree-context";
import { TreeSwitcher } from "@/components/ide/tree-switcher";
import { MAIN_TREE } from "@/lib/trees";

type User = { id: string; name: string; email: string; role: string };

export function IdeView({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  useFirstScreen(projectId);
  const { user } = useRequireUser();
  // Asked at once, beside the account: someone signed out gets an error here and is sent to sign in.
  const project = useQuery(trpc.project.get.queryOptions({ projectId }));
  // Viewers are offered no action that changes the project (the server refuses them anyway).
  const canWrite = project.data?.role !== undefined && project.data.role !== "viewer";
  // The tree shown (`?tree=`, lib/trees.ts): the file views below start afresh when it changes.
  const tree = useSearchParams().get("tree") || MAIN_TREE;

  // What the IDE shows first is fetched while the project loads, not after it (the explorer asks
  // for its root folder itself), and the live document client starts loading now (fetched on the
  // click before, ~100 ms of a cold open). The editor's code is asked for once the IDE is on
  // screen, or once the first file's text takes typing (editor-area.tsx): asked for here, it
  // arrived and ran (100-300 ms of the page's main thread on a cold load) as the first file was
  // clicked, and the file's text waited for it.
  useEffect(() => {
    const sessions = trpc.session.list.queryOptions({ projectId, parentId: null });
    // Not asked again when the first screen's answer was a refusal (a project the person may not open).
    if (queryClient.getQueryState(sessions.queryKey)?.status !== "error") void queryClient.prefetchQuery(sessions);
    void import("@/lib/live-doc-connection");
  }, [queryClient, trpc, projectId]);

  let body;
  if (!user || project.isPending)
    body = (
      <div className="center-message" style={{ height: "100vh" }}>
        Loading…
      </div>
    );
  else if (project.error) body = <ProjectError error={project.error} />;
  else
    body = (
      <LanguageProvider projectId={projectId} canWrite={canWrite} key={tree}>
        <IdeShell projectId={projectId} name={project.data.name} canWrite={canWrite} user={user} />
      </LanguageProvider>
    );
  return (
    <CommandsProvider>
      <TreeProvider tree={tree}>
        <OpenFilesProvider projectId={projectId} key={`${projectId}:${tree}`}>
          <ExplorerProvider projectId={projectId} canWrite={canWrite}>
            <GitProvider
              projectId={projectId}
              canWrite={canWrite}
              canAdmin={project.data?.role === "owner" || project.data?.role === "admin"}
              readable={project.isSuccess}
            >
              <OpenSessionProvider>{body}</OpenSessionProvider>
            </GitProvider>
          </ExplorerProvider>
        </OpenFilesProvider>
      </TreeProvider>
    </CommandsProvider>
  );
}

/** Says so on every IDE page when commands do not run in a sandbox, or do not run at all. */
function SandboxBanner() {
  const trpc = useTRPC();
  const sandbox = useQuery(trpc.account.status.queryOptions()).data?.sandbox;
  if (sandbox !== "off" && sandbox !== "unavailable") return null;
  return (
    <div className="banner banner-warning" role="alert" data-testid="sandbox-banner">
      <span className="banner-text">
        {sandbox === "off"
          ? "The sandbox is off on this server (TANDEM_SANDBOX=none): terminals and the agent's commands run unsandboxed, with the server's own files and network."
          : "The sandbox does not work on this server, so terminals, the agent's shell, MCP servers and discovery commands do not run. An admin can install bubblewrap."}
      </span>
    </div>
  );
}

function ProjectError({ error }: { error: unknown }) {
  const missing = errorCode(error) === "NOT_FOUND" || errorCode(error) === "BAD_REQUEST";
  return (
    <div className="auth-page">
      <div className="auth-card" data-testid="project-not-found">
        <h1>{missing ? "Project not found" : "Could not open the project"}</h1>
        <p className="muted">
          {missing ? "This project does not exist, or you do not have access to it." : errorMessage(error)}
        </p>
        <Link className="btn btn-primary" href="/">
          Back to projects
        </Link>
      </div>
    </div>
  );
}

function IdeShell({
  projectId,
  name,
  canWrite,
  user,
}: {
  projectId: string;
  name: string;
  canWrite: boolean;
  user: User;
}) {
  const buffers = useFileBuffers();
  // Quick open's paths, kept in a worker for as long as the project is open and fed its file changes.
  const [quickOpen] = useState(() => new QuickOpenIndex());
  useEffect(() => () => quickOpen.dispose(), [quickOpen]);
  const connection = useFileChanges(projectId, quickOpen);
  const { active } = useTabsState();
  const dirty = [...useBuffersState().values()].some((f) => f.dirty);

  useEffect(() => {
    document.title = `${name} · Tandem`;
  }, [name]);

  // Leaving with unsaved changes asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);

  useEffect(() => () => buffers.dispose(), [buffers]);
  // The panels not on the first screen load behind the editor's code (deferred-panels.tsx), which
  // waits for the first file's text (editor-area.tsx says why).
  useEffect(() => preloadDeferredPanels(editorCodeIn), []);

  const router = useRouter();
  const { theme, toggle } = useTheme();
  const [sideView, setSideView] = useState("explorer");
  useCommands([
    { id: "theme", label: `Toggle light/dark theme (now ${theme})`, run: toggle },
    { id: "projects", label: "Go to projects", run: () => router.push("/") },
    {
      id: "settings",
      label: "Project settings: MCP servers, tools, workflows, schedules",
      run: () => router.push(`/p/${projectId}/settings`),
    },
  ]);

  return (
    <div className="ide" data-testid="ide">
      <header className="ide-titlebar">
        {/* No prefetch: fetching these routes while the IDE loads competes with the IDE's own first screen. */}
        <Link href="/" prefetch={false} className="auth-brand" style={{ fontSize: 13 }} title="All projects">
          <span className="brand-mark" style={{ width: 18, height: 18, fontSize: 10 }}>
            T
          </span>
        </Link>
        <Link href="/" prefetch={false} className="muted">
          Projects
        </Link>
        <span className="muted">/</span>
        <span className="project-title" data-testid="project-title">
          {name}
        </span>
        <TreeSwitcher projectId={projectId} />
        <span className="spacer" />
        <Link
          href={`/p/${projectId}/settings`}
          prefetch={false}
          className="icon-btn"
          title="Project settings: MCP servers, tools, workflows, schedules"
          aria-label="Project settings"
          data-testid="project-settings"
        >
          <GearIcon />
        </Link>
        <InboxBell />
        <UserMenu user={user} />
      </header>
      <SandboxBanner />
      <EnvironmentBanner projectId={projectId} canRun={canWrite} />
      <IdeLayout
        projectId={projectId}
        projectName={name}
        canWrite={canWrite}
        user={user}
        sideView={sideView}
        onSideView={setSideView}
      />
      <footer className={connection === "offline" ? "statusbar offline" : "statusbar"} data-testid="statusbar">
        <GitStatusBar onOpen={() => setSideView("scm")} />
        <span data-testid="connection-state" data-state={connection}>
          {connection === "live"
            ? "● Live"
            : connection === "connecting"
              ? "○ Connecting…"
              : "⚠ Offline: changes on disk are not shown"}
        </span>
        <ProblemsStatus />
        <span className="spacer" />
        {active && <span>{active}</span>}
        {!canWrite && <span>Read-only access</span>}
      </footer>
      <CommandPalette projectId={projectId} files={quickOpen} />
      <SymbolSearch />
    </div>
  );
}
