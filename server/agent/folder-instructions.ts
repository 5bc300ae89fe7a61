import path from "node:path";
import type { Workspace } from "@/server/workspace";
import type { Tool } from "@/server/tools/define-tool";
import { INSTRUCTION_FILES, instructionFile, renderInstruction } from "@/server/agent/prompts/context";

// Nested AGENTS.md / TANDEM.md: the root ones are in the system prompt; one in a sub-folder
// applies when the agent works there, so it is appended to the result of the first read or edit
// of a file under that folder, once per session (again after the context was cut, since the
// model no longer has it).

export type FolderInstructions = (tool: Tool, input: unknown) => Promise<string | null>;

export function folderInstructions(workspace: Workspace, announced: Set<string>): FolderInstructions {
  return async (tool, input) => {
    if (tool.kind !== "read" && tool.kind !== "edit") return null;
    const requested = (input as { path?: unknown } | null)?.path;
    if (typeof requested !== "string") return null;
    const relative = path.isAbsolute(requested)
      ? path.relative(workspace.root, requested)
      : path.posix.normalize(requested);
    if (!relative || relative.startsWith("..") || path.isAbsolute(relative)) return null;
    const parts = path.posix
      .dirname(relative.split(path.sep).join("/"))
      .split("/")
      .filter((p) => p && p !== ".");
    const found: string[] = [];
    for (let depth = 1; depth <= parts.length; depth++) {
      const dir = parts.slice(0, depth).join("/");
      if (announced.has(dir)) continue;
      for (const name of INSTRUCTION_FILES) {
        const file = await workspace.read(`${dir}/${name}`).catch(() => null);
        if (file?.kind !== "text" || !file.content.trim()) continue;
        announced.add(dir);
        found.push(
          renderInstruction(
            instructionFile(`${dir}/${name}`, file.content),
            `[Instructions from ${dir}/${name}; they apply to files under ${dir}/ and take precedence there:]`,
          ),
        );
      }
    }
    return found.length ? found.join("\n\n") : null;
  };
}
