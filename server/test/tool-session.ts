import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { Workspace } from "@/server/workspace";
import type { ShellSession } from "@/server/workspace/shell-session";
import type { Tool, ToolContext, ToolProgress } from "@/server/tools/define-tool";
import { workspaceOutputStore } from "@/server/tools/output-store";
import { createReadTracker } from "@/server/tools/read-tracker";
import { runTool, type ToolRun } from "@/server/tools/registry";

export interface TestSession {
  ctx: ToolContext;
  root: string;
  /** A sibling folder outside the workspace, for escape attempts. */
  outside: string;
  progress: ToolProgress[];
  run(tool: Tool, input: unknown, overrides?: Partial<ToolContext>): Promise<ToolRun>;
}

const noShell: ShellSession = new Proxy({} as ShellSession, {
  get() {
    throw new Error("This test context has no shell session; pass one in overrides.");
  },
});

/** A fresh workspace (and an outside folder) with a ToolContext over it; removed after the test. */
export function useToolSessions(): (overrides?: Partial<ToolContext>) => Promise<TestSession> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (overrides = {}) => {
    const base = await realpath(await mkdtemp(path.join(os.tmpdir(), "tandem-tools-")));
    made.push(base);
    const root = path.join(base, "ws");
    const outside = path.join(base, "ws-outside");
    const { mkdir } = await import("node:fs/promises");
    await mkdir(root);
    await mkdir(outside);
    const workspace = await Workspace.open(root);
    const progress: ToolProgress[] = [];
    const ctx: ToolContext = {
      workspace,
      projectId: "p1",
      sessionId: "s1",
      userId: "u1",
      signal: new AbortController().signal,
      emit: (p) => progress.push(p),
      reads: createReadTracker(),
      shell: noShell,
      outputs: workspaceOutputStore(workspace, "s1"),
      sandbox: { mode: "none", network: { policy: "off", allowHosts: [] }, limits: null },
      fetchPolicy: { allowHosts: [] },
      modelAcceptsImages: true,
      ...overrides,
    };
    return {
      ctx,
      root,
      outside,
      progress,
      run: (tool, input, more = {}) => runTool(tool, input, { ...ctx, ...more }),
    };
  };
}
