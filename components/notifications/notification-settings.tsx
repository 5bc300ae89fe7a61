"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { ChatKindSelect } from "@/components/ui/chat-kind-select";
import { errorMessage } from "@/components/ui/error-message";
import { browserNotificationsSupported } from "@/components/notifications/browser-notifications";
import {
  CHAT_KIND_LABELS,
  type ChatKind,
  DELIVERY_CHANNELS,
  type DeliveryChannel,
  type DeliveryPrefs,
  KIND_LABELS,
  NOTIFICATION_KINDS,
} from "@/lib/notifications";

const CHANNEL_LABELS: Record<DeliveryChannel, string> = {
  inApp: "In the app",
  browser: "Browser",
  email: "Email",
  chat: "Chat",
};

/** A person's choice of delivery per kind of notification, their chat webhook, and the browser's permission. */
export function NotificationSettings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.notification.settings.queryOptions());
  const [prefs, setPrefs] = useState<DeliveryPrefs | null>(null);
  const [chatKind, setChatKind] = useState<ChatKind>("slack");
  const [chatUrl, setChatUrl] = useState("");
  const [permission, setPermission] = useState<string>("default");
  const refresh = { onSuccess: () => void queryClient.invalidateQueries(trpc.notification.settings.queryFilter()) };
  const save = useMutation(trpc.notification.saveSettings.mutationOptions(refresh));
  const test = useMutation(trpc.notification.testChat.mutationOptions(refresh));

  useEffect(() => {
    if (settings.data && !prefs) {
      setPrefs(settings.data.prefs);
      if (settings.data.chatKind) setChatKind(settings.data.chatKind);
    }
  }, [settings.data, prefs]);
  useEffect(() => {
    if (browserNotificationsSupported()) setPermission(Notification.permission);
  }, []);

  if (!settings.data || !prefs) return null;
  const data = settings.data;
  const available: Record<DeliveryChannel, boolean> = {
    inApp: true,
    browser: true,
    email: data.mailConfigured,
    chat: data.chatKind !== null,
  };
  const toggle = (kind: (typeof NOTIFICATION_KINDS)[number], channel: DeliveryChannel) =>
    setPrefs({ ...prefs, [kind]: { ...prefs[kind], [channel]: !prefs[kind][channel] } });

  return (
    <section className="card settings-card" id="notifications" data-testid="notification-settings">
      <div className="section-title">
        <h2>Notifications</h2>
        <span className="hint">
          What reaches you, and where. Email and chat come as a digest: the first at once, the rest of the next{" "}
          {data.digestMinutes} minutes in one message.
        </span>
      </div>
      {(save.error ?? test.error) && <div className="error-text">{errorMessage(save.error ?? test.error)}</div>}
      {data.lastError && (
        <div className="notice notice-error" data-testid="notification-last-error">
          {data.lastError}
        </div>
      )}
      <table className="notification-table">
        <thead>
          <tr>
            <th />
            {DELIVERY_CHANNELS.map((c) => (
              <th key={c}>{CHANNEL_LABELS[c]}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {NOTIFICATION_KINDS.map((kind) => (
            <tr key={kind}>
              <td>{KIND_LABELS[kind]}</td>
              {DELIVERY_CHANNELS.map((channel) => (
                <td key={channel}>
                  <input
                    type="checkbox"
                    aria-label={`${KIND_LABELS[kind]}: ${CHANNEL_LABELS[channel]}`}
                    checked={prefs[kind][channel]}
                    disabled={!available[channel] && !prefs[kind][channel]}
                    onChange={() => toggle(kind, channel)}
                    data-testid={`pref-${kind}-${channel}`}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint">
        {data.mailConfigured ? "" : "Email needs SMTP on this server (ask its admin). "}
        Browser notifications show when Tandem&apos;s tab is in the background
        {permission === "granted" ? "." : ", once your browser allows them: "}
        {permission !== "granted" && browserNotificationsSupported() && (
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            onClick={async () => setPermission(await Notification.requestPermission())}
            data-testid="notification-permission"
          >
            {permission === "denied" ? "Blocked in this browser's site settings" : "Allow in this browser"}
          </button>
        )}
      </p>
      <div className="row">
        <button
          type="button"
          className="btn btn-primary btn-sm"
          onClick={() => save.mutate({ prefs })}
          disabled={save.isPending}
          data-testid="notification-save"
        >
          Save
        </button>
        {save.isSuccess && <span className="hint">Saved.</span>}
      </div>
      <h3 className="notification-chat-title">Chat webhook</h3>
      <p className="hint">
        {data.chatKind
          ? `Set: a ${CHAT_KIND_LABELS[data.chatKind]} incoming webhook (its address stays on the server).`
          : "An incoming-webhook URL from Slack, Discord, Mattermost or a Microsoft Teams channel (Workflows)."}
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ prefs, chat: { kind: chatKind, url: chatUrl } }, { onSuccess: () => setChatUrl("") });
        }}
      >
        <ChatKindSelect value={chatKind} onChange={setChatKind} width={160} testId="chat-kind" />
        <input
          className="input"
          placeholder="https://hooks.slack.com/services/…"
          value={chatUrl}
          onChange={(e) => setChatUrl(e.target.value)}
          aria-label="Webhook URL"
          data-testid="chat-url"
        />
        <button type="submit" className="btn btn-sm" disabled={!chatUrl.trim()} data-testid="chat-save">
          Set
        </button>
        {data.chatKind && (
          <>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              onClick={() => test.mutate()}
              data-testid="chat-test"
            >
              Send a test
            </button>
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => save.mutate({ prefs, chat: null })}>
              Remove
            </button>
          </>
        )}
        {test.isSuccess && <span className="hint">Sent.</span>}
      </form>
    </section>
  );
}
