"use client";

import { linkedLiveDocSocketUrl } from "@/lib/live-doc-protocol";
import "@/components/share/share.css";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useMemo, useState } from "react";
import { GUEST_ID, SessionView } from "@/components/chat/session-view";
import type { FileApi } from "@/components/editor/file-buffer";
import {
  OpenFilesProvider,
  useBuffersState,
  useFileBuffers,
  useOpenTabs,
  useTabsState,
} from "@/components/editor/open-files-context";
import { LiveFileText } from "@/components/share/live-file-text";
import { TrpcProvider, useTRPC, useTRPCClient } from "@/components/trpc-provider";
import { Brand } from "@/components/ui/brand";
import { errorMessage } from "@/components/ui/error-message";
import "@/components/chat/chat.css";

// /s/<token>: one agent session through a share link. Every call presents the token (the nested
// TrpcProvider); the server decides what it reaches. When the link is revoked or expires, the live
// stream ends with an error and the page turns into the "revoked" / "expired" page.

export function SharePage({ token }: { token: string }) {
  return (
    <TrpcProvider shareToken={token}>
      <ShareLink token={token} />
    </TrpcProvider>
  );
}

function ShareLink({ token }: { token: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const resolved = useQuery(trpc.share.resolve.queryOptions({ token }, { retry: false, staleTime: Infinity }));
  const onAccessLost = useCallback(
    () => void queryClient.invalidateQueries(trpc.share.resolve.queryFilter({ token })),
    [queryClient, trpc, token],
  );

  if (resolved.isPending) return <ShareFrame>Opening the link…</ShareFrame>;
  if (resolved.error) return <LinkEnded state="error" message={errorMessage(resolved.error)} />;
  const link = resolved.data;
  if (link.state !== "active") return <LinkEnded state={link.state} message={link.message} />;
  return (
    <div className="share-page" data-testid="share-page" data-scope={link.scope}>
      <header className="app-header">
        <Brand />
        <span className="share-crumb">
          {link.project.name} · <strong>{link.session.title}</strong>
        </span>
        <span className={`status-pill ${link.scope}`} data-testid="share-scope">
          {link.scope === "view" ? "View only" : "Collaborate"}
        </span>
        <div className="spacer" />
        {link.scope === "collaborate" && !link.signedIn && (
          <Link
            className="btn btn-sm"
            href={`/sign-in?next=${encodeURIComponent(`/s/${token}`)}`}
            data-testid="share-sign-in"
          >
            Sign in to take part
          </Link>
        )}
        <span className="hint">Expires {new Date(link.expiresAt).toLocaleDateString()}</span>
      </header>
      <SharedSession
        token={token}
        projectId={link.project.id}
        projectName={link.project.name}
        sessionId={link.session.id}
        onAccessLost={onAccessLost}
      />
    </div>
  );
}

function SharedSession({
  token,
  projectId,
  projectName,
  sessionId,
  onAccessLost,
}: {
  token: string;
  projectId: string;
  projectName: string;
  sessionId: string;
  onAccessLost: () => void;
}) {
  const client = useTRPCClient();
  const trpc = useTRPC();
  const me = useQuery(trpc.account.status.queryOptions());
  const api: FileApi = useMemo(
    () => ({
      read: (path) => client.share.read.query({ sessionId, path }),
      write: () => Promise.reject(new Error("Files are read-only through a share link.")),
      // Watched live, read-only: people's typing and cursors as they happen.
      live: async (path) => {
        const { LiveDocConnection } = await import("@/lib/live-doc-connection");
        return new LiveDocConnection(
          linkedLiveDocSocketUrl(window.location, { token, sessionId }, path),
          (url) => new WebSocket(url),
        );
      },
    }),
    [client, sessionId, token],
  );
  const user = me.data?.user;
  const person = useMemo(() => (user ? { id: user.id, name: user.name } : { id: GUEST_ID, name: "Guest" }), [user]);
  const noop = useCallback(() => {}, []);
  return (
    <OpenFilesProvider projectId={projectId} api={api}>
      <div className="share-body">
        <aside className="share-files">
          <TouchedFiles sessionId={sessionId} />
        </aside>
        <section className="share-session agent-panel">
          <SessionView
            projectId={projectId}
            projectName={projectName}
            sessionId={sessionId}
            me={person}
            onOpenSession={noop}
            onTranscript={noop}
            onAccessLost={onAccessLost}
          />
        </section>
      </div>
    </OpenFilesProvider>
  );
}

/** The files the session read or changed, each opened read-only as it is now. */
function TouchedFiles({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const files = useQuery(trpc.share.files.queryOptions({ sessionId }, { refetchInterval: 5_000 }));
  const tabs = useOpenTabs();
  const { active } = useTabsState();
  const open = useBuffersState();
  const [shown, setShown] = useState<string | null>(null);
  const current = open.get(active ?? shown ?? "");
  const buffers = useFileBuffers();
  // A live document: people's typing and cursors as they happen.
  const live = current?.live ? buffers.liveConnection(current.path) : undefined;
  return (
    <>
      <div className="pane-header">Files this session touched</div>
      {files.data && files.data.length > 0 ? (
        <ul className="share-file-list" data-testid="share-files">
          {files.data.map((path) => (
            <li key={path}>
              <button
                type="button"
                className={path === current?.path ? "share-file active" : "share-file"}
                onClick={() => {
                  setShown(path);
                  void tabs.open(path);
                }}
                data-testid={`share-file-${path}`}
              >
                {path}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint share-files-empty">{files.isPending ? "Loading…" : "None yet."}</p>
      )}
      {current && (
        <div className="share-file-view" data-testid="share-file-view">
          <div className="pane-header">{current.path} · read-only</div>
          {current.status === "loading" ? (
            <p className="hint">Loading…</p>
          ) : current.status === "error" ? (
            <p className="error-text">{current.error}</p>
          ) : current.kind === "binary" ? (
            <p className="hint">A binary file ({current.size} bytes).</p>
          ) : live ? (
            <LiveFileText path={current.path} connection={live} buffers={buffers} />
          ) : (
            <pre className="share-file-content">{current.diskContent}</pre>
          )}
        </div>
      )}
    </>
  );
}

function ShareFrame({ children }: { children: React.ReactNode }) {
  return (
    <>
      <header className="app-header">
        <Brand />
      </header>
      <main className="app-main">
        <p className="muted">{children}</p>
      </main>
    </>
  );
}

const ENDED: Record<string, { title: string; body?: string }> = {
  revoked: {
    title: "This link was revoked",
    body: "Whoever shared this session ended the link, so it no longer shows anything.",
  },
  expired: { title: "This link has expired", body: "Share links last at most 90 days; this one's time is up." },
  invalid: { title: "This link does not work" },
  error: { title: "This link could not be opened" },
};

/** What a revoked, expired or unknown link shows. */
function LinkEnded({ state, message }: { state: string; message: string }) {
  return (
    <>
      <header className="app-header">
        <Brand />
      </header>
      <main className="app-main">
        <section className="card stack link-ended" data-testid="share-ended" data-state={state}>
          <h1>{(ENDED[state] ?? ENDED.invalid!).title}</h1>
          <p>{ENDED[state]?.body ?? message}</p>
          <p className="hint">Ask the person who shared it for a new link.</p>
        </section>
      </main>
    </>
  );
}
