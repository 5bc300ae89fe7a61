import { z } from "zod";
import { TAB_MEMORY_PREFIX } from "@/lib/first-screen";

// What the IDE remembers of a project's editor tabs, in this browser, across reloads and visits to
// other pages: which files were open, the active one, and each one's scroll and cursor (Monaco's
// view state, opaque here). Unsaved buffers are not kept: a restored tab shows the file on disk.

const MAX_TABS = 50;
const memorySchema = z.object({
  paths: z.array(z.string()).max(MAX_TABS),
  active: z.string().nullable(),
  views: z.record(z.string(), z.unknown()),
});

export type TabMemory = z.infer<typeof memorySchema>;

export type TabMemoryStore = { load(): TabMemory | null; save(memory: TabMemory): void };

/** The tabs of `projectId` in localStorage; anything unreadable there counts as nothing. */
export function localTabMemory(projectId: string): TabMemoryStore {
  const key = `${TAB_MEMORY_PREFIX}${projectId}`;
  return {
    load() {
      try {
        return memorySchema.parse(JSON.parse(localStorage.getItem(key) ?? "null"));
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
