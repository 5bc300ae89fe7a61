import vm from "node:vm";
import { describe, expect, it } from "vitest";
import {
  FIRST_SCREEN_GLOBAL,
  type FirstScreenRequest,
  firstScreenScript,
  SHOW_IGNORED_STORAGE,
  TAB_MEMORY_PREFIX,
} from "@/lib/first-screen";

/** Runs the page's inline script as a browser would, with `stored` in localStorage; returns what it asked for and kept. */
function runScript(script: string, search: string, stored: Record<string, string> | "unreadable" = {}) {
  const fetched: string[] = [];
  const window: Record<string, unknown> = {};
  vm.runInNewContext(script, {
    window,
    location: { search },
    URLSearchParams,
    JSON,
    encodeURIComponent,
    localStorage: {
      getItem: (key: string) => {
        if (stored === "unreadable") throw new Error("SecurityError");
        return stored[key] ?? null;
      },
    },
    fetch: (url: string) => {
      fetched.push(url);
      return Promise.resolve({ json: () => Promise.resolve([{ result: { data: { json: { ok: true } } } }]) });
    },
  });
  const request = window[FIRST_SCREEN_GLOBAL] as FirstScreenRequest;
  const url = new URL(fetched[0]!, "http://localhost");
  return { fetched, request, url, input: JSON.parse(url.searchParams.get("input")!) };
}

const id = "7e753c4a-8959-4832-84df-391aa06d75b8";

describe("the first screen's inline script", () => {
  it("asks for the first screen in one tRPC batch, with the inputs the IDE's queries use", async () => {
    const { fetched, request, url, input } = runScript(firstScreenScript(id, "main"), "");
    expect(fetched).toHaveLength(1);
    expect(url.pathname).toBe("/api/trpc/account.status,project.get,fs.tree,session.list");
    expect(url.searchParams.get("batch")).toBe("1");
    expect(input).toEqual({
      0: { json: null },
      1: { json: { projectId: id } },
      2: { json: { projectId: id, path: "", showIgnored: SHOW_IGNORED_STORAGE.initial } },
      3: { json: { projectId: id, parentId: null } },
    });
    expect(request.projectId).toBe(id);
    expect(request.queries.map(([path]) => path)).toEqual(["account.status", "project.get", "fs.tree", "session.list"]);
    expect(await request.answer).toEqual([{ result: { data: { json: { ok: true } } } }]);
  });

  it("names the page's tree, and the explorer's stored setting, as the IDE will", () => {
    const tree = "0b6a2a4e-1c5f-4a53-9d43-2c0a3b8f9e10";
    const { input } = runScript(firstScreenScript(id, "main"), `?tree=${tree}`, {
      [SHOW_IGNORED_STORAGE.key]: "false",
    });
    expect(input[2]).toEqual({ json: { projectId: id, tree, path: "", showIgnored: false } });
    expect(runScript(firstScreenScript(id, "main"), "?tree=main").input[2].json).not.toHaveProperty("tree");
  });

  it("asks for the text of the file the editor will reopen, on the main tree only, and nothing for unreadable tab memory", () => {
    const tabs = {
      [`${TAB_MEMORY_PREFIX}${id}`]: JSON.stringify({ paths: ["a.ts", "src/b.ts"], active: "src/b.ts", views: {} }),
    };
    const { url, input, request } = runScript(firstScreenScript(id, "main"), "", tabs);
    expect(url.pathname).toBe("/api/trpc/account.status,project.get,fs.tree,session.list,fs.preview");
    expect(input[4]).toEqual({ json: { projectId: id, path: "src/b.ts" } });
    expect(request.queries.at(-1)).toEqual(["fs.preview", { projectId: id, path: "src/b.ts" }]);
    // A session's tree opens its files the plain way: nothing is asked for there.
    expect(
      runScript(firstScreenScript(id, "main"), "?tree=0b6a2a4e-1c5f-4a53-9d43-2c0a3b8f9e10", tabs).input,
    ).not.toHaveProperty("4");
    // Another project's tabs, none active, or memory that is not what the editor writes: no read.
    for (const stored of <Record<string, string>[]>[
      { [`${TAB_MEMORY_PREFIX}other`]: tabs[`${TAB_MEMORY_PREFIX}${id}`]! },
      { [`${TAB_MEMORY_PREFIX}${id}`]: JSON.stringify({ paths: [], active: null, views: {} }) },
      { [`${TAB_MEMORY_PREFIX}${id}`]: "{not json" },
      { [`${TAB_MEMORY_PREFIX}${id}`]: JSON.stringify({ active: { path: "x" } }) },
      { [`${TAB_MEMORY_PREFIX}${id}`]: "null" },
    ])
      expect(runScript(firstScreenScript(id, "main"), "", stored).url.pathname).toBe(
        "/api/trpc/account.status,project.get,fs.tree,session.list",
      );
  });

  it("uses the explorer's default when storage cannot be read", () => {
    const { input } = runScript(firstScreenScript(id, "main"), "", "unreadable");
    expect(input[2].json.showIgnored).toBe(SHOW_IGNORED_STORAGE.initial);
  });

  it("keeps a hostile project id inside its string: nothing in it closes the script element", () => {
    const hostile = `x"</script><script>alert(1)</script>`;
    const script = firstScreenScript(hostile, "main");
    expect(script).not.toContain("</script");
    expect(runScript(script, "").request.projectId).toBe(hostile);
  });

  it("answers null when the request fails, so the IDE asks as usual", async () => {
    const window: Record<string, unknown> = {};
    vm.runInNewContext(firstScreenScript(id, "main"), {
      window,
      location: { search: "" },
      URLSearchParams,
      JSON,
      encodeURIComponent,
      localStorage: { getItem: () => null },
      fetch: () => Promise.reject(new TypeError("offline")),
    });
    expect(await (window[FIRST_SCREEN_GLOBAL] as FirstScreenRequest).answer).toBeNull();
  });
});
