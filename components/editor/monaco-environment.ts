// Monaco's web workers, bundled from the local package. Paths go through monaco-editor's exports
// map ("./*.js" -> "./esm/vs/*.js"); deep "monaco-editor/esm/vs/..." imports are refused by it.

type WorkerFactory = () => Worker;

const workers: Record<string, WorkerFactory> = {
  json: () => new Worker(new URL("monaco-editor/language/json/json.worker.js", import.meta.url), { type: "module" }),
  css: () => new Worker(new URL("monaco-editor/language/css/css.worker.js", import.meta.url), { type: "module" }),
  html: () => new Worker(new URL("monaco-editor/language/html/html.worker.js", import.meta.url), { type: "module" }),
  editor: () => new Worker(new URL("monaco-editor/editor/editor.worker.js", import.meta.url), { type: "module" }),
};

const workerFor: Record<string, keyof typeof workers> = {
  json: "json",
  css: "css",
  scss: "css",
  less: "css",
  html: "html",
  handlebars: "html",
  razor: "html",
};

export function installMonacoEnvironment() {
  self.MonacoEnvironment = {
    getWorker: (_workerId: string, label: string) => workers[workerFor[label] ?? "editor"](),
  };
}

/** Props for @monaco-editor/react's wrapper: app/ide.css has the editor made at its real size. */
export const MONACO_WRAPPER = { className: "monaco-wrapper" };
