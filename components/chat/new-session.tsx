"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Composer } from "@/components/chat/composer";
import type { PendingImage } from "@/components/chat/composer-images";
import { useSendMessage } from "@/components/chat/use-send-message";
import { useMentions } from "@/components/chat/use-mentions";
import { configuredModels, ModelPicker, NoModelHelp } from "@/components/chat/model-picker";
import { titleFromMessage } from "@/components/chat/session-title";
import { WEB_SEARCH_LABELS } from "@/lib/web-search-kinds";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { TreeChoice, useTreeChoice } from "@/components/chat/tree-choice";

/** A session starts with its first message, which also names it. */
export function NewSession({
  projectId,
  canWrite,
  onCreated,
  onCancel,
}: {
  projectId: string;
  canWrite: boolean;
  onCreated: (id: string) => void;
  onCancel: (() => void) | null;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.model.list.queryOptions({ projectId }));
  const models = configuredModels(list.data);
  const [chosen, setChosen] = useState<string | null>(null);
  const model = chosen && models.includes(chosen) ? chosen : (list.data?.defaultModel ?? models[0] ?? "");
  const create = useMutation(trpc.session.create.mutationOptions());
  const startOnBranch = useMutation(trpc.tree.startSession.mutationOptions());
  const tree = useTreeChoice(projectId);
  const send = useSendMessage();
  const mentions = useMentions(projectId);

  const start = async (text: string, images: PendingImage[]) => {
    const title = titleFromMessage(text);
    const place = tree.value;
    const session =
      place.kind === "branch"
        ? await startOnBranch.mutateAsync({
            projectId,
            title,
            model,
            ...(place.branch ? { branch: place.branch } : {}),
            ...(place.base ? { base: place.base } : {}),
          })
        : await create.mutateAsync({ projectId, title, model });
    if (place.kind === "branch") void queryClient.invalidateQueries(trpc.tree.list.queryFilter({ projectId }));
    await send.mutateAsync(session.id, text, images, await mentions.mentionsToSend(text));
    void queryClient.invalidateQueries(trpc.session.list.queryFilter({ projectId }));
    onCreated(session.id);
  };

  return (
    <div className="session-view new-session" data-testid="new-session-view">
      <div className="session-header">
        {onCancel && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={onCancel} data-testid="session-back">
            ‹ Sessions
          </button>
        )}
        <span className="session-title">
          <span className="session-title-text">New session</span>
        </span>
      </div>
      {list.isPending ? (
        <div className="center-message">Loading…</div>
      ) : list.error ? (
        <div className="center-message">{errorMessage(list.error)}</div>
      ) : models.length === 0 ? (
        <NoModelHelp list={list.data} />
      ) : (
        <>
          <div className="center-message new-session-hint">
            <div>
              <p>Ask for a change, a review or an explanation.</p>
              <p className="hint">
                The agent reads freely; edits, commands and web requests wait for your approval. <kbd>Alt</kbd>+
                <kbd>A</kbd> jumps to what waits.
              </p>
            </div>
          </div>
          {(create.error ?? startOnBranch.error ?? send.error) && (
            <div className="error-text composer-error">
              {errorMessage(create.error ?? startOnBranch.error ?? send.error)}
            </div>
          )}
          <TreeChoice choice={tree} />
          <Composer
            running={false}
            autoFocus
            disabled={canWrite ? null : "Your role in this project is read-only."}
            onSend={start}
            complete={mentions.complete}
            mentionsOf={mentions.mentionsOf}
            footer={
              <>
                <ModelPicker models={models} value={model} onChange={setChosen} imageModels={list.data.imageModels} />
                <span className="hint" data-testid="web-search-info">
                  {list.data.webSearch ? `Web search: ${WEB_SEARCH_LABELS[list.data.webSearch]}` : "No web search"}
                </span>
              </>
            }
          />
        </>
      )}
    </div>
  );
}
