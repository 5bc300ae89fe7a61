import * as v from "valibot";
import { TAB_MEMORY_PREFIX } from "@/lib/first-screen";

// What the IDE remembers of a project's editor tabs, in this browser, across reloads and visits to
// other pages: which files were open, the active one, and each one's scroll and cursor (Monaco's
// view state, opaque here). Unsaved buffers are not kept: a restored tab shows the file on disk.

const MAX_TABS = 50;
// Read with valibot, as everything the first screen reads (text-placeholder.tsx says why).
const memorySchema = v.object({
  paths: v.pipe(v.array(v.string()), v.maxLength(MAX_TABS)),
  active: v.nullable(v.string()),
  views: v.record(v.string(), v.unknown()),
});

export type TabMemory = v.InferOutput<typeof memorySchema>;

export type TabMemoryStore = { load(): TabMemory | null; save(memory: TabMemory): void };

/** The tabs of `projectId` in localStorage; anything unreadable there counts as nothing. */
export function localTabMemory(projectId: string): TabMemoryStore {
  const key = `${TAB_MEMORY_PREFIX}${projectId}`;
  return {
    load() {
      try {
        return v.parse(memorySchema, JSON.parse(localStorage.getItem(key) ?? "null"));
      } catch {
        return null;
      }
    },
    save(memory) {
      try {
        localStorage.setItem(key, JSON.stringify({ ...memory, paths: memory.paths.slice(0, MAX_TABS) }));
      } catch {
        // Storage full or disabled: the tabs are simply not remembered.
      }
    },
  };
}
