import { describe, expect, it } from "vitest";
import { groupCommit } from "./group-commit";

describe("group commit of event rows", () => {
  it("writes rows asked for while an INSERT is in flight together in the next one, in order", async () => {
    const statements: number[][] = [];
    let release = () => {};
    const insert = groupCommit<number>(async (rows) => {
      statements.push(rows);
      if (statements.length === 1) await new Promise<void>((r) => (release = r));
    });
    const first = insert([1]);
    await Promise.resolve();
    const later = [insert([2, 3]), insert([4]), insert([5])];
    await new Promise((r) => setTimeout(r, 10));
    expect(statements).toEqual([[1]]);
    release();
    await Promise.all([first, ...later]);
    expect(statements).toEqual([[1], [2, 3, 4, 5]]);
  });

  it("fails only the caller whose rows are refused when a shared INSERT fails", async () => {
    const insert = groupCommit<string>(async (rows) => {
      await new Promise((r) => setTimeout(r, 1));
      if (rows.includes("taken seq")) throw new Error("duplicate key");
    });
    const results = await Promise.allSettled([insert(["a"]), insert(["b"]), insert(["taken seq"]), insert(["c"])]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ message: "duplicate key" });
  });
});
