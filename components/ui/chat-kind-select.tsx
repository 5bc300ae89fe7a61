import { CHAT_KIND_LABELS, CHAT_KINDS, type ChatKind } from "@/lib/notifications";

/** Which chat service an incoming webhook belongs to (a person's notifications, a project's channels). */
export function ChatKindSelect({
  value,
  onChange,
  width,
  testId,
}: {
  value: ChatKind;
  onChange: (kind: ChatKind) => void;
  width: number;
  testId?: string;
}) {
  return (
    <select
      className="input"
      style={{ width }}
      value={value}
      onChange={(e) => onChange(e.target.value as ChatKind)}
      aria-label="Chat service"
      data-testid={testId}
    >
      {CHAT_KINDS.map((k) => (
        <option key={k} value={k}>
          {CHAT_KIND_LABELS[k]}
        </option>
      ))}
    </select>
  );
}
