import * as monaco from "@/components/editor/monaco";
import type { LanguageSession } from "@/components/editor/language/language-session";

// Models the language client makes to show other files in peek views (definitions, references),
// and the workspace path a model's `file:///` URI names.

export const pathOfUri = (uri: monaco.Uri | string) =>
  (typeof uri === "string" ? monaco.Uri.parse(uri) : uri).path.slice(1);

/** Models made only to show other files in peek views; a tab that opens the file adopts them. */
const previews = new WeakSet<monaco.editor.ITextModel>();

export function isPreviewModel(model: monaco.editor.ITextModel): boolean {
  return previews.has(model);
}

export function adoptPreviewModel(model: monaco.editor.ITextModel): void {
  previews.delete(model);
}

/** Makes sure each location's file has a model, so peek views can show it; dependencies come read-only. */
export async function ensureModels(
  session: LanguageSession,
  locations: monaco.languages.Location[],
): Promise<monaco.languages.Location[]> {
  const missing = [...new Set(locations.map((l) => l.uri.toString()))].filter(
    (uri) => !monaco.editor.getModel(monaco.Uri.parse(uri)),
  );
  await Promise.all(
    missing.map(async (uri) => {
      const text = await session.readText(pathOfUri(uri)).catch(() => null);
      if (text === null || monaco.editor.getModel(monaco.Uri.parse(uri))) return;
      previews.add(monaco.editor.createModel(text, undefined, monaco.Uri.parse(uri)));
    }),
  );
  return locations.filter((l) => monaco.editor.getModel(l.uri));
}
