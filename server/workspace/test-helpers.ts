import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect } from "vitest";
import { WorkspaceError, type WorkspaceErrorCode } from "./errors";

/** A fresh folder under the OS temp dir, removed after the current test. */
export function useTempDirs(): () => Promise<string> {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "tandem-ws-"));
    made.push(dir);
    return dir;
  };
}

export async function expectCode(promise: Promise<unknown>, code: WorkspaceErrorCode | WorkspaceErrorCode[]): Promise<WorkspaceError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a WorkspaceError ${String(code)}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkspaceError);
  const codes = Array.isArray(code) ? code : [code];
  expect(codes).toContain((error as WorkspaceError).code);
  return error as WorkspaceError;
}
