import type { ModelMessage, SystemModelMessage, ToolSet as SdkToolSet } from "ai";

// Anthropic caches a request's prefix only where the request marks it (cache_control), up to 4
// marks. Every step of a turn resends the same tools, system prompt and history, so three marks
// make each step read them from the cache (a tenth of the input price) instead of paying them
// again: the last tool (the tools come first), the system prompt, and the last message (the
// history so far, which the next step extends). Other providers cache on their own or not at all.

const EPHEMERAL = { anthropic: { cacheControl: { type: "ephemeral" } } } as const;

export type CachedRequest = {
  instructions: string | SystemModelMessage;
  messages: ModelMessage[];
  tools: SdkToolSet;
};

export function withCacheMarks(
  modelId: string,
  request: { instructions: string; messages: ModelMessage[]; tools: SdkToolSet },
): CachedRequest {
  if (!modelId.startsWith("anthropic:")) return request;
  const tools = { ...request.tools };
  const lastTool = Object.keys(tools).at(-1);
  // The converted tools are shared across steps (step.ts caches them): the mark goes on a copy.
  if (lastTool) tools[lastTool] = { ...tools[lastTool]!, providerOptions: EPHEMERAL };
  const last = request.messages.at(-1);
  const messages = last
    ? [...request.messages.slice(0, -1), { ...last, providerOptions: EPHEMERAL } as ModelMessage]
    : request.messages;
  return {
    instructions: { role: "system", content: request.instructions, providerOptions: EPHEMERAL },
    messages,
    tools,
  };
}
