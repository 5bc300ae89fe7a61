import { callTitle, editCall, multiEditCall, writeFileCall, type EditInput } from "@/lib/tool-call-shapes";

// How the transcript reads a call's input (the tools' schemas and titles are in lib/tool-call-shapes.ts,
// what they display in lib/tool-display.ts): its title, and the files an edit would change.

/**
 * What a call's card is titled: made from its input when the tool's entry in lib/tool-call-shapes.ts
 * says how (so a search's pattern reads as the model sent it, also in logs written before the
 * server titled it so), else the title it was logged with.
 */
export function toolTitle(item: { toolName: string; title: string; input: unknown }): string {
  return callTitle(item.toolName, item.input) ?? item.title;
}

/** The files a call would change, with the edits for each (edit, multi_edit, write_file). */
export type PlannedChange = { path: string; edits: EditInput[] } | { path: string; content: string };

export function plannedChanges(toolName: string, input: unknown): PlannedChange[] | null {
  if (toolName === writeFileCall.name) {
    const parsed = writeFileCall.input.safeParse(input).data;
    return parsed ? [{ path: parsed.path, content: parsed.content }] : null;
  }
  if (toolName === editCall.name) {
    const parsed = editCall.input.safeParse(input).data;
    return parsed ? [{ path: parsed.path, edits: [parsed] }] : null;
  }
  if (toolName === multiEditCall.name) {
    const parsed = multiEditCall.input.safeParse(input).data;
    if (!parsed) return null;
    const byPath = new Map<string, EditInput[]>();
    for (const edit of parsed.edits) byPath.set(edit.path, [...(byPath.get(edit.path) ?? []), edit]);
    return [...byPath].map(([path, edits]) => ({ path, edits }));
  }
  return null;
}

/** The file after the edits, applied as the edit tool does for exact matches; null when one does not match. */
export function applyEdits(before: string, edits: EditInput[]): string | null {
  let text = before;
  for (const edit of edits) {
    if (edit.old_string === "") {
      if (text !== "") return null;
      text = edit.new_string;
      continue;
    }
    const at = text.indexOf(edit.old_string);
    if (at === -1) return null;
    text = edit.replace_all
      ? text.split(edit.old_string).join(edit.new_string)
      : text.slice(0, at) + edit.new_string + text.slice(at + edit.old_string.length);
  }
  return text;
}
