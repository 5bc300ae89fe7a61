"use client";

import { useEffect } from "react";
import * as monaco from "@/components/editor/monaco";

/**
 * Disposes a DiffEditor's own models once the editor is gone. @monaco-editor/react disposes them
 * before it disposes the editor, which Monaco throws on as an uncaught "TextModel got disposed
 * before DiffEditorWidget model got reset"; so DiffEditors pass keepCurrentOriginalModel and
 * keepCurrentModifiedModel and leave their models to this hook, which disposes them after the
 * editor (a task later), on unmount or when the URIs change.
 */
export function useDisposeDiffModels(uris: readonly string[]) {
  const key = uris.join("\n");
  useEffect(
    () => () => {
      const gone = key.split("\n");
      setTimeout(() => {
        for (const uri of gone.filter(Boolean)) {
          const model = monaco.editor.getModel(monaco.Uri.parse(uri));
          if (model && !model.isAttachedToEditor()) model.dispose();
        }
      });
    },
    [key],
  );
}
