import type { Workspace } from "@/server/workspace";
import { atomicWriteBeneath } from "@/server/workspace/atomic-write";
import { mkdirBeneath } from "@/server/workspace/beneath-entries";

/** Where complete tool outputs go when what the model sees is cut. */
export interface OutputStore {
  /** Saves `content` and returns the path the agent can read it back with (read_file, grep, shell). */
  save(name: string, content: string): Promise<string>;
}

const OUTPUT_ROOT = ".tandem/tool-output";

/**
 * Outputs kept inside the workspace under `.tandem/tool-output/<session>/`, so the agent's own
 * tools and its sandboxed shell can read them. A `.gitignore` of `*` keeps them out of git.
 * Written beneath the root (server/workspace/beneath.ts): the folder is the workspace's, and a
 * member may have made it a link.
 */
export function workspaceOutputStore(workspace: Workspace, sessionId: string): OutputStore {
  const safeSession = sessionId.replace(/[^A-Za-z0-9_-]/g, "_");
  const relativeDir = `${OUTPUT_ROOT}/${safeSession}`;
  let counter = 0;
  let ready: Promise<void> | undefined;

  const dir = (): Promise<void> => {
    ready ??= (async () => {
      await workspace.resolve(relativeDir);
      await mkdirBeneath(workspace.root, relativeDir);
      await atomicWriteBeneath(workspace.root, ".tandem/.gitignore", Buffer.from("*\n"), { exclusive: true }).catch(
        () => undefined,
      );
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
      await dir();
      const file = `${relativeDir}/${fileName(name)}`;
      await atomicWriteBeneath(workspace.root, file, Buffer.from(content));
      return file;
    },
  };
}
