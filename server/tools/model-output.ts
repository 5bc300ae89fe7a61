import type { ToolResultOutput } from "@ai-sdk/provider-utils";
import type { ToolResult } from "./define-tool";

/**
 * The AI SDK `toModelOutput` form of a result: errors as error text (providers flag them to the
 * model), text as text, image parts as file content. Only `llm` is sent; `display` never is.
 */
export function toModelOutput(result: Pick<ToolResult, "llm" | "error">): ToolResultOutput {
  if (typeof result.llm === "string") {
    return result.error ? { type: "error-text", value: result.llm } : { type: "text", value: result.llm };
  }
  return {
    type: "content",
    value: result.llm.map((part) =>
      part.type === "text"
        ? { type: "text" as const, text: part.text }
        : { type: "file" as const, mediaType: part.mediaType, data: { type: "data" as const, data: part.data } },
    ),
  };
}
