import { appendFile, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Workspace } from "@/server/workspace";

/** Where complete tool outputs go when what the model sees is cut. */
export interface OutputStore {
  /** Saves `content` and returns the path the agent can read it back with (read_file, grep, shell). */
  save(name: string, content: string): Promise<string>;
  /** A new file to append to while a command runs: its absolute path and the agent's path. */
  file(name: string): Promise<{ absolute: string; path: string }>;
}

const OUTPUT_ROOT = ".tandem/tool-output";

/**
 * Outputs kept inside the workspace under `.tandem/tool-output/<session>/`, so the agent's own
 * tools and its sandboxed shell can read them. A `.gitignore` of `*` keeps them out of git.
 */
export function workspaceOutputStore(workspace: Workspace, sessionId: string): OutputStore {
  const safeSession = sessionId.replace(/[^A-Za-z0-9_-]/g, "_");
  const relativeDir = `${OUTPUT_ROOT}/${safeSession}`;
  let counter = 0;
  let ready: Promise<string> | undefined;

  const dir = (): Promise<string> => {
    ready ??= (async () => {
      const resolved = await workspace.resolve(relativeDir);
      await mkdir(resolved.absolute, { recursive: true });
      const tandemDir = path.join(workspace.root, ".tandem");
      await writeFile(path.join(tandemDir, ".gitignore"), "*\n", { flag: "wx" }).catch(() => undefined);
      return resolved.absolute;
    })();
    ready.catch(() => (ready = undefined));
    return ready;
  };

  const fileName = (name: string): string => {
    counter += 1;
    const stem = name.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60) || "output";
    return `${Date.now().toString(36)}-${counter}-${stem}`;
  };

  return {
    async save(name, content) {
      const absoluteDir = await dir();
      const base = fileName(name);
      await writeFile(path.join(absoluteDir, base), content);
      return `${relativeDir}/${base}`;
    },
    async file(name) {
      const absoluteDir = await dir();
      const base = fileName(name);
      const absolute = path.join(absoluteDir, base);
      await appendFile(absolute, "");
      return { absolute, path: `${relativeDir}/${base}` };
    },
  };
}
