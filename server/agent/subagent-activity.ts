import type { LiveItem } from "@/lib/session-events";

// A running sub-agent's activity, for its card in the parent session: the step it is on, the tool
// it is running, and its last lines of output or text. Built from the child's live stream and
// published to the parent as progress of the delegate call, at most every THROTTLE_MS.

export type SubagentActivity = { childSessionId: string; step: number; tool: string | null; lines: string };

const THROTTLE_MS = 250;
const KEEP_CHARS = 1_200;

export function watchSubagent(
  childSessionId: string,
  subscribe: (listener: (item: LiveItem) => void) => () => void,
  publish: (activity: SubagentActivity) => void,
): () => void {
  const activity: SubagentActivity = { childSessionId, step: 0, tool: null, lines: "" };
  // The step it is on: steps are counted as they start (their first streamed text or call).
  const steps = new Set<string>();
  const onStep = (stepId: string) => {
    steps.add(stepId);
    activity.step = steps.size;
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    publish({ ...activity });
  };
  const changed = () => {
    timer ??= setTimeout(flush, THROTTLE_MS);
  };
  const append = (text: string) => {
    activity.lines = (activity.lines + text).slice(-KEEP_CHARS);
  };
  const unsubscribe = subscribe((item) => {
    if (item.kind === "delta") {
      onStep(item.stepId);
      append(item.text);
    } else if (item.kind === "progress" && item.progress.type === "output") append(item.progress.text);
    else if (item.kind === "event") {
      const event = item.event;
      if (event.type === "tool_call") {
        onStep(event.payload.stepId);
        activity.tool = event.payload.title ?? event.payload.toolName;
        append(`\n$ ${activity.tool}\n`);
        // A tool that starts is shown at once: a quick one would otherwise end inside the window.
        clearTimeout(timer);
        flush();
        return;
      } else if (event.type === "tool_result") activity.tool = null;
      else if (event.type === "assistant_message") onStep(event.payload.stepId);
      else return;
    } else return;
    changed();
  });
  // Stopping sends what is still pending, so the card ends on the child's last step.
  return () => {
    unsubscribe();
    if (timer) {
      clearTimeout(timer);
      flush();
    }
  };
}
