import { z } from "zod";
import { defineTool } from "./define-tool";
import { ok } from "./result";

// note: a note kept with the session (a plan, findings, a hand-over), which people can edit too.
// Writing a note with an existing title replaces its content.

/** What the tool reads of the saved note. */
export type Note = { id: string; title: string; content: string };

export interface NoteStore {
  save(input: { sessionId: string; title: string; content: string; updatedById: string | null }): Promise<Note>;
}

export function noteTool(store: NoteStore) {
  return defineTool({
    name: "note",
    onDemand: "always",
    kind: "memory",
    description:
      "Write a note attached to this session, visible to and editable by the people in it: a plan, findings, a summary " +
      "for whoever picks the work up. A note with the same title is replaced, so keep one note per topic up to date.",
    input: z.object({
      title: z.string().min(1).max(200).describe("The note's title; reuse it to update the note."),
      content: z.string().max(100_000).describe("The whole note, in markdown."),
    }),
    describe: (i) => `Note: ${i.title}`,
    async execute(i, ctx) {
      const note = await store.save({
        sessionId: ctx.sessionId,
        title: i.title,
        content: i.content,
        updatedById: null,
      });
      return ok(
        `Saved note "${note.title}".`,
        { kind: "markdown", text: `### ${note.title}\n\n${note.content}` },
        { noteId: note.id },
      );
    },
  });
}
