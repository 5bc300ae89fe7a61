"use client";

import type { TranscriptItem } from "@/lib/session-transcript";
import { Markdown } from "@/components/chat/markdown";
import { QuestionCard } from "@/components/chat/question-card";
import { NetworkDeniedCard } from "@/components/chat/network-denied-card";
import { ToolCard } from "@/components/chat/tool-card";
import { SessionImages } from "@/components/chat/session-images";
import { MentionChips } from "@/components/chat/mention-chips";
import { SubagentCard } from "@/components/chat/subagent-card";
import { RememberButton } from "@/components/chat/remember-button";
import { TranscriptReviewItem } from "@/components/review/transcript-review-items";
import type { ToolProgress } from "@/components/chat/use-session-log";

export type TranscriptContext = {
  projectId: string;
  sessionId: string;
  projectName: string;
  canWrite: boolean;
  /** May add a host to the project's network allow-list (its admins). */
  canAllowHosts: boolean;
  me: { id: string; name: string };
  progress: ToolProgress;
  /** Set when the session can be resumed (failed or interrupted); shown on the last banner. */
  onResume: (() => void) | null;
  onOpenSession: (sessionId: string) => void;
};

/** What to do about an error, beyond its message, when the code says. */
const ERROR_HELP: Record<string, string> = {
  not_configured: "An administrator sets the provider in the server's environment (see the panel's model help).",
  auth: "Check the provider's API key in the server's environment.",
  rate_limited: "Wait a minute, then retry.",
  context_too_long: "Start a new session, or ask for a smaller piece of work.",
};

const HOOK_OUTCOMES: Record<Extract<TranscriptItem, { kind: "hook" }>["outcome"], string> = {
  ok: "ran",
  blocked: "blocked the call",
  failed: "failed (the call went on)",
  timed_out: "timed out and was stopped",
  refused: "refused by the project's rules",
};

export function TranscriptItemView({
  item,
  isLast,
  ctx,
}: {
  item: TranscriptItem;
  isLast: boolean;
  ctx: TranscriptContext;
}) {
  switch (item.kind) {
    case "user": {
      const mine = item.authorId === ctx.me.id;
      const name = mine ? "You" : (item.authorName ?? "Someone");
      return (
        <div className={mine ? "msg msg-user mine" : "msg msg-user"} data-testid="user-message">
          {ctx.canWrite && <RememberButton projectId={ctx.projectId} text={item.text} />}
          <div className="msg-author">
            <span className="avatar" aria-hidden>
              {(item.authorName ?? name).slice(0, 1).toUpperCase()}
            </span>
            <span data-testid="message-author">{name}</span>
            <time className="muted" dateTime={item.at.toISOString()}>
              {item.at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}
            </time>
          </div>
          <div className="msg-text">{item.text}</div>
          {item.mentions?.length ? (
            <MentionChips
              refs={item.mentions.map((m) => m.ref)}
              failed={item.mentions.filter((m) => !m.ok).map((m) => m.ref)}
            />
          ) : null}
          {item.images?.length ? <SessionImages sessionId={ctx.sessionId} images={item.images} /> : null}
        </div>
      );
    }
    case "assistant":
      if (!item.text && !item.streaming) return null;
      return (
        <div className="msg msg-assistant" data-testid="assistant-message" data-streaming={item.streaming || undefined}>
          {ctx.canWrite && !item.streaming && item.text && (
            <RememberButton projectId={ctx.projectId} text={item.text} />
          )}
          {item.text ? <Markdown text={item.text} /> : <span className="hint">…</span>}
        </div>
      );
    case "reasoning":
      return (
        <details className="reasoning" data-testid="reasoning">
          <summary>Reasoning</summary>
          <div className="reasoning-text">{item.text}</div>
        </details>
      );
    case "tool":
      return (
        <ToolCard
          item={item}
          live={ctx.progress.get(item.toolCallId)}
          sessionId={ctx.sessionId}
          projectId={ctx.projectId}
          projectName={ctx.projectName}
          canWrite={ctx.canWrite}
        />
      );
    case "question":
      return <QuestionCard item={item} canWrite={ctx.canWrite} />;
    case "network":
      return (
        <NetworkDeniedCard
          item={item}
          projectId={ctx.projectId}
          sessionId={ctx.sessionId}
          canAllow={ctx.canAllowHosts}
        />
      );
    case "subagent":
      return (
        <SubagentCard
          item={item}
          live={ctx.progress.get(item.toolCallId)?.children?.get(item.childSessionId)}
          canWrite={ctx.canWrite}
          onOpen={() => ctx.onOpenSession(item.childSessionId)}
        />
      );
    case "context":
      return (
        <div
          className="notice-line"
          data-testid="context-used"
          title="What the agent was given from this project for this turn"
        >
          <span>Context: {item.label}</span>
        </div>
      );
    case "compaction":
      return (
        <details className="reasoning">
          <summary>Earlier conversation summarized</summary>
          <div className="reasoning-text">{item.summary}</div>
        </details>
      );
    case "error":
      return (
        <div className="banner-error" role="alert" data-testid="error-banner" data-code={item.code}>
          <div className="banner-text">
            <strong>{item.message}</strong>
            {ERROR_HELP[item.code] && <div className="hint">{ERROR_HELP[item.code]}</div>}
          </div>
          {isLast && ctx.onResume && (
            <button type="button" className="btn btn-sm" onClick={ctx.onResume} data-testid="retry">
              Retry
            </button>
          )}
        </div>
      );
    case "checkpoint":
    case "restore":
    case "rewound":
      return (
        <TranscriptReviewItem
          item={item}
          sessionId={ctx.sessionId}
          canWrite={ctx.canWrite}
          renderItem={(inner) => <TranscriptItemView item={inner} isLast={false} ctx={ctx} />}
        />
      );
    case "pull_request":
      return (
        <div className="pull-request-card" data-testid="pull-request-card">
          <a href={item.url} target="_blank" rel="noopener noreferrer" data-testid="pull-request-link">
            Pull request #{item.number}: {item.title}
          </a>
          <div className="hint">
            {item.by.id === ctx.me.id ? "You" : item.by.name} opened it from <code>{item.head}</code> into{" "}
            <code>{item.base}</code>.
          </div>
        </div>
      );
    case "hook":
      return (
        <details className="reasoning" data-testid="hook-run" data-outcome={item.outcome}>
          <summary>
            Hook {item.hookEvent} <code>{item.command}</code>:{" "}
            {item.outcome === "blocked" && item.hookEvent !== "PreToolUse"
              ? "sent its output to the agent"
              : HOOK_OUTCOMES[item.outcome]}
          </summary>
          {item.output && <pre className="reasoning-text">{item.output}</pre>}
        </details>
      );
    case "notice":
      return (
        <div className="notice-line" data-testid="notice">
          <span>{item.text}</span>
          {isLast && ctx.onResume && (
            <button type="button" className="btn btn-sm" onClick={ctx.onResume} data-testid="resume">
              Resume
            </button>
          )}
        </div>
      );
  }
}

/** A stable key per item, from what it is about or the event that made it, never its place in the list. */
export function transcriptKey(item: TranscriptItem): string {
  switch (item.kind) {
    case "user":
      return `u${item.seq}`;
    case "assistant":
      return `a${item.stepId}`;
    case "reasoning":
      return `r${item.seq}`;
    case "tool":
      return `t${item.toolCallId}`;
    case "question":
      return `q${item.approvalId}`;
    case "network":
      return `n${item.seq}-${item.host}`;
    case "subagent":
      return `s${item.childSessionId}`;
    case "checkpoint":
      return `c${item.checkpointId}`;
    case "restore":
      return `x${item.seq}`;
    case "pull_request":
      return `p${item.seq}`;
    case "rewound":
      return `w${item.fromSeq}`;
    case "context":
      return `k${item.seq}`;
    case "compaction":
      return `m${item.seq}`;
    case "error":
      return `e${item.seq}`;
    case "notice":
      return `o${item.seq}`;
    case "hook":
      return `h${item.seq}`;
  }
}
