import * as v from "valibot";

// The terminals this browser has seen in a project, so that one the server lost in a restart
// (terminals live in the server's memory) shows as ended with a notice, instead of vanishing.

const MAX = 20;
// Read with valibot, as everything the IDE's first screen reads (editor/text-placeholder.tsx says why).
const terminalsSchema = v.array(v.object({ id: v.string(), title: v.string(), createdAt: v.string() }));
export type SeenTerminal = v.InferOutput<typeof terminalsSchema>[number];

/**
 * What to remember after a look at the list: the listed terminals, and those remembered that are
 * not listed and were made before the server (re)started (`ended`). A remembered terminal made
 * since then and not listed was closed: it is forgotten.
 */
export function reconcile(
  remembered: readonly SeenTerminal[],
  listed: readonly SeenTerminal[],
  serverStartedAt: string,
) {
  const listedIds = new Set(listed.map((t) => t.id));
  const started = Date.parse(serverStartedAt);
  const ended = remembered.filter((t) => !listedIds.has(t.id) && Date.parse(t.createdAt) < started);
  const remember = [...listed.map(({ id, title, createdAt }) => ({ id, title, createdAt })), ...ended].slice(-MAX);
  return { remember, ended };
}

/** The terminals seen in `projectId`, in localStorage; anything unreadable there counts as none. */
export function rememberedTerminals(projectId: string) {
  const key = `tandem-terminals:${projectId}`;
  return {
    load(): SeenTerminal[] {
      try {
        return v.parse(terminalsSchema, JSON.parse(localStorage.getItem(key) ?? "[]"));
      } catch {
        return [];
      }
    },
    save(terminals: readonly SeenTerminal[]) {
      try {
        localStorage.setItem(key, JSON.stringify(terminals));
      } catch {
        // Storage full or disabled: a restart then hides the terminals without a notice.
      }
    },
  };
}
