import { describe, expect, it } from "vitest";
import type { ReadResult } from "@/lib/fs-schemas";
import type { FileApi } from "./file-buffer";
import { FileBuffers } from "./file-buffers";
import { OpenTabs } from "./open-tabs";
import type { TabMemory } from "./tab-memory";

// The tabs and the buffers behind them, over an in-memory disk in place of the project's files.

function disk(files: Record<string, string>) {
  const versions = new Map<string, number>();
  const notFound = () => Object.assign(new Error("not found"), { data: { code: "NOT_FOUND" } });
  const api: FileApi = {
    async read(path): Promise<ReadResult> {
      const content = files[path];
      if (content === undefined) throw notFound();
      const version = String(versions.get(path) ?? 0);
      return {
        kind: "text",
        path,
        content,
        encoding: "utf8",
        bom: false,
        eol: "\n",
        version,
        size: content.length,
        readOnly: false,
      };
    },
    async write(path, content) {
      files[path] = content;
      versions.set(path, (versions.get(path) ?? 0) + 1);
      return { version: String(versions.get(path)) };
    },
  };
  const change = (path: string, content: string) => {
    files[path] = content;
    versions.set(path, (versions.get(path) ?? 0) + 1);
  };
  return { api, files, change };
}

function open(files: Record<string, string>, memory: TabMemory | null = null) {
  const d = disk(files);
  const buffers = new FileBuffers(d.api);
  const saved: TabMemory[] = [];
  const tabs = new OpenTabs(buffers, memory && { load: () => memory, save: (m) => void saved.push(m) });
  return { ...d, buffers, tabs, saved };
}

describe("open tabs and file buffers", () => {
  it("opening a tab reads its buffer, closing it drops the buffer and shows the neighbour", async () => {
    const { tabs, buffers } = open({ "a.ts": "a", "b.ts": "b", "c.ts": "c" });
    await tabs.open("a.ts");
    await tabs.open("b.ts");
    await tabs.open("c.ts");
    tabs.activate("b.ts");
    expect(buffers.get("b.ts")).toMatchObject({ status: "ready", diskContent: "b", dirty: false });
    tabs.close("b.ts");
    expect(tabs.getSnapshot()).toMatchObject({ paths: ["a.ts", "c.ts"], active: "c.ts" });
    expect(buffers.get("b.ts")).toBeUndefined();
  });

  it("a rename moves tabs and buffers under a folder, in place, and the active tab follows", async () => {
    const { tabs, buffers } = open({ "src/a.ts": "a", "b.ts": "b" });
    await tabs.open("src/a.ts");
    await tabs.open("b.ts");
    tabs.activate("src/a.ts");
    tabs.renamed("src", "lib");
    expect(tabs.getSnapshot()).toMatchObject({ paths: ["lib/a.ts", "b.ts"], active: "lib/a.ts" });
    expect(buffers.get("lib/a.ts")).toMatchObject({ path: "lib/a.ts", diskContent: "a" });
    expect(buffers.get("src/a.ts")).toBeUndefined();
  });

  it("a change on disk reloads a clean buffer", async () => {
    const { tabs, buffers, change } = open({ "a.ts": "one" });
    await tabs.open("a.ts");
    change("a.ts", "two");
    await buffers.diskChanged({ type: "change", path: "a.ts" });
    expect(buffers.get("a.ts")).toMatchObject({ diskContent: "two", version: "1", conflict: null });
  });

  it("a deleted file is flagged, and Reload then closes its tab", async () => {
    const { tabs, buffers, files } = open({ "a.ts": "a" });
    await tabs.open("a.ts");
    delete files["a.ts"];
    await buffers.diskChanged({ type: "unlink", path: "a.ts" });
    expect(buffers.get("a.ts")?.conflict).toEqual({ kind: "deleted" });
    await buffers.reload("a.ts");
    expect(tabs.getSnapshot().paths).toEqual([]);
    expect(buffers.get("a.ts")).toBeUndefined();
  });

  it("remembered tabs come back as they are on disk, without the files gone since", async () => {
    const memory = { paths: ["a.ts", "gone.ts", "b.ts"], active: "a.ts", views: {} };
    const { tabs, buffers, saved } = open({ "a.ts": "a", "b.ts": "b" }, memory);
    await tabs.restore();
    expect(tabs.getSnapshot()).toMatchObject({ paths: ["a.ts", "b.ts"], active: "a.ts" });
    expect(buffers.get("gone.ts")).toBeUndefined();
    expect(saved.at(-1)).toMatchObject({ paths: ["a.ts", "b.ts"], active: "a.ts" });
  });

  it("restoring asks the keyboard for the remembered active tab's editor, yielding; a tab picked meanwhile drops it", async () => {
    const memory = { paths: ["a.ts", "b.ts"], active: "b.ts", views: {} };
    const first = open({ "a.ts": "a", "b.ts": "b" }, memory);
    await first.tabs.restore();
    expect(first.tabs.getSnapshot().focus).toEqual({ path: "b.ts", restored: true });
    expect(first.tabs.takeFocus("a.ts")).toBeNull();
    expect(first.tabs.takeFocus("b.ts")).toEqual({ path: "b.ts", restored: true });
    expect(first.tabs.takeFocus("b.ts")).toBeNull();

    const second = open({ "a.ts": "a", "b.ts": "b" }, memory);
    const restoring = second.tabs.restore();
    second.tabs.activate("a.ts");
    await restoring;
    expect(second.tabs.getSnapshot().focus).toBeNull();
    // Quick Open's is not a restored tab's: it stays asked for until its editor shows.
    await second.tabs.openFocused("b.ts");
    second.tabs.activate("b.ts");
    expect(second.tabs.takeFocus("b.ts")).toEqual({ path: "b.ts", restored: false });

    // A remembered active tab whose file is gone asks for nothing.
    const gone = open({ "a.ts": "a" }, memory);
    await gone.tabs.restore();
    expect(gone.tabs.getSnapshot()).toMatchObject({ paths: ["a.ts"], focus: null });
  });

  it("restoring shows the remembered active tab while the files load, and keeps a tab picked meanwhile", async () => {
    const memory = { paths: ["a.ts", "b.ts", "c.ts"], active: "b.ts", views: {} };
    const { tabs, api } = open({ "a.ts": "a", "b.ts": "b", "c.ts": "c" }, memory);
    let loaded: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      loaded = resolve;
    });
    const read = api.read;
    api.read = async (path) => {
      await slow;
      return read(path);
    };
    const restoring = tabs.restore();
    expect(tabs.getSnapshot().active).toBe("b.ts");
    tabs.activate("c.ts");
    loaded();
    await restoring;
    expect(tabs.getSnapshot().active).toBe("c.ts");
  });
});
