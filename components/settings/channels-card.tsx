"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";
import { ChatKindSelect } from "@/components/ui/chat-kind-select";
import { CHAT_KIND_LABELS, type ChatKind } from "@/lib/notifications";

/** The project's chat channels for the agent's send_message: names the agent may use, set by maintainers. */
export function ChannelsCard({ projectId, canEdit }: { projectId: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.channel.list.queryOptions({ projectId }));
  const refresh = { onSuccess: () => void queryClient.invalidateQueries(trpc.channel.list.queryFilter()) };
  const save = useMutation(trpc.channel.save.mutationOptions(refresh));
  const remove = useMutation(trpc.channel.remove.mutationOptions(refresh));
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ChatKind>("slack");
  const [url, setUrl] = useState("");
  const error = save.error ?? remove.error ?? channels.error;

  return (
    <section className="card settings-card" data-testid="channels-card">
      <div className="section-title">
        <h2>Chat channels</h2>
        <span className="hint">
          The agent&apos;s send_message posts to these by name (it never sees their addresses), under the approval
          policy.
        </span>
      </div>
      {error && <div className="error-text">{errorMessage(error)}</div>}
      {channels.data && channels.data.length === 0 && <p className="hint">No channels: send_message is not offered.</p>}
      {channels.data && channels.data.length > 0 && (
        <ul className="item-list">
          {channels.data.map((c) => (
            <li key={c.id} data-testid="channel-row">
              <div className="item-main">
                <span className="item-title">#{c.name}</span>
                <span className="item-sub">{CHAT_KIND_LABELS[c.kind]}</span>
              </div>
              {canEdit && (
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  onClick={() => remove.mutate({ projectId, name: c.name })}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canEdit && (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ projectId, name, kind, url }, { onSuccess: () => (setName(""), setUrl("")) });
          }}
        >
          <input
            className="input"
            style={{ width: 140 }}
            placeholder="team-chat"
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-label="Channel name"
            data-testid="channel-name"
          />
          <ChatKindSelect value={kind} onChange={setKind} width={150} />
          <input
            className="input"
            placeholder="Incoming-webhook URL"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            aria-label="Webhook URL"
            data-testid="channel-url"
          />
          <button
            type="submit"
            className="btn btn-sm"
            disabled={!name.trim() || !url.trim()}
            data-testid="channel-save"
          >
            Add
          </button>
        </form>
      )}
    </section>
  );
}
