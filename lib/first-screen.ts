// The IDE's first screen (who is signed in, the project, the explorer's root folder, the sessions,
// and the text of the file its remembered active tab shows) is asked for by the page's HTML as it is parsed, while the page's scripts load, instead of after
// they have run. Profiled on a cold load of a small project (bench:open), the same batch went out
// only once the scripts had run (~330 ms after navigation) and queued behind them for one of the
// browser's six connections, so the IDE rendered ~770 ms in. The page (app/p/[projectId]) inlines
// `firstScreenScript`; the IDE takes the answer (components/ide/use-first-screen.ts) for these
// queries, through the same /api/trpc request any call makes, so nothing else changes: the same
// cookie, the same authorization, the same forwarding to the instance that holds the project.

/** Where the page keeps the request it started, until the IDE takes it. */
export const FIRST_SCREEN_GLOBAL = "__tandemFirstScreen";

/** Where the explorer keeps whether it shows ignored files, and the default: the first screen's root folder depends on it. */
export const SHOW_IGNORED_STORAGE = { key: "tandem.explorer.showIgnored", initial: true } as const;

/** The most a read for the text shown before the editor (`fs.preview`) carries: a live document's limit. */
export const PREVIEW_MAX_BYTES = 1024 * 1024;

/** Where the editor remembers a project's tabs (components/editor/tab-memory.ts), after this prefix and the project's id. */
export const TAB_MEMORY_PREFIX = "tandem.tabs.";

/** A tRPC query the first screen shows: its path and input, as the IDE's components ask for it. */
export type FirstScreenQuery = [path: string, input: unknown];

/** What the page started: the queries and their batch's answer (null when the request failed). */
export type FirstScreenRequest = { projectId: string; queries: FirstScreenQuery[]; answer: Promise<unknown> };

/**
 * The queries of the first screen, with the inputs IdeView, the explorer (folderQuery), the agent
 * panel and the open files' buffers (open-files-context.tsx) pass; `tree` is the page's `?tree=`
 * ({} for the main tree, as useTreeInput says); `activeFile` the remembered active tab's path,
 * whose text shows before the editor's code is in (the main tree's only: a session's tree is read
 * the plain way). Self-contained: the page runs its source.
 */
export function firstScreenQueries(
  projectId: string,
  tree: { tree?: string },
  showIgnored: unknown,
  activeFile: unknown,
): FirstScreenQuery[] {
  const queries: FirstScreenQuery[] = [
    ["account.status", undefined],
    ["project.get", { projectId }],
    ["fs.tree", { projectId, ...tree, path: "", showIgnored }],
    ["session.list", { projectId, parentId: null }],
  ];
  if (typeof activeFile === "string" && tree.tree === undefined)
    queries.push(["fs.preview", { projectId, path: activeFile }]);
  return queries;
}

/**
 * Runs in the page as the HTML is parsed: reads the inputs the IDE will use (the URL's tree, the
 * stored explorer setting), sends the batch as tRPC's client sends one (GET, JSON inputs by index,
 * each wrapped as superjson writes plain values) and keeps the request on `window`.
 * Self-contained: the page runs its source.
 */
export function requestFirstScreen(
  queriesOf: typeof firstScreenQueries,
  projectId: string,
  mainTree: string,
  showIgnored: { key: string; initial: boolean },
  tabMemoryPrefix: string,
  global: string,
): void {
  const name = new URLSearchParams(location.search).get("tree");
  // As the explorer reads it (explorer-context.tsx).
  let ignored: unknown = showIgnored.initial;
  try {
    const stored = localStorage.getItem(showIgnored.key);
    if (stored !== null) ignored = JSON.parse(stored);
  } catch {
    // Storage unreadable: the explorer falls back to the same default.
  }
  // The active tab the editor will reopen (tab-memory.ts); the server checks the path as any read's.
  let active: unknown = null;
  try {
    active = JSON.parse(localStorage.getItem(tabMemoryPrefix + projectId) ?? "null")?.active;
  } catch {
    // Unreadable: the editor reopens nothing either.
  }
  const queries = queriesOf(projectId, name && name !== mainTree ? { tree: name } : {}, ignored, active);
  const input: Record<number, { json: unknown }> = {};
  queries.forEach(([, value], i) => {
    input[i] = { json: value === undefined ? null : value };
  });
  const url = `/api/trpc/${queries.map(([path]) => path).join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`;
  const answer = fetch(url)
    .then((response) => response.json())
    .catch(() => null);
  (window as unknown as Record<string, unknown>)[global] = { projectId, queries, answer };
}

/** The inline script of a project's page. */
export function firstScreenScript(projectId: string, mainTree: string): string {
  // `<` escaped in the values: nothing in them can close the script element.
  const json = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");
  const args = [
    String(firstScreenQueries),
    json(projectId),
    json(mainTree),
    json(SHOW_IGNORED_STORAGE),
    json(TAB_MEMORY_PREFIX),
    json(FIRST_SCREEN_GLOBAL),
  ];
  return `(${String(requestFirstScreen)})(${args.join(",")});`;
}
