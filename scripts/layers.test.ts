import { createRequire } from "node:module";
import {
  cruise,
  type ICruiseOptions,
  type ICruiseResult,
  type IForbiddenRuleType,
  type IViolation,
} from "dependency-cruiser";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";
import { KNOWN_VIOLATIONS } from "./layer-exceptions";

// The layer table (.dependency-cruiser.cjs, written out in docs/architecture.md) checked over
// server/, lib/, components/ and app/: an import circle or an import against the table fails here,
// naming the import and the rule. The exceptions that exist today are listed in
// layer-exceptions.ts; the list only shrinks (an entry that no longer happens fails too).

const require = createRequire(import.meta.url);
const config = require("../.dependency-cruiser.cjs") as { forbidden: IForbiddenRuleType[]; options: ICruiseOptions };

const key = (rule: string, from: string, to: string) => `${rule}: ${from} -> ${to}`;

function describeViolation(v: IViolation, comments: Map<string, string>): string {
  const rule = comments.get(v.rule.name) ?? v.rule.name;
  if (v.cycle?.length)
    return `${v.from} starts an import circle ${[v.from, ...v.cycle.map((c) => c.name)].join(" -> ")}\n    (${v.rule.name}) ${rule}`;
  return `${v.from} imports ${v.to}\n    (${v.rule.name}) ${rule}`;
}

/** The graph of server/, lib/, components/ and app/, checked against the layer table; made once for both tests. */
let cruised: Promise<ICruiseResult> | undefined;
const graph = () =>
  (cruised ??= cruise(
    ["server", "lib", "components", "app"],
    { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } },
    {},
    { tsConfig: extractTSConfig("tsconfig.json") },
  ).then(({ output }) => output as ICruiseResult));

/**
 * What loads with `entries` before anything else is asked for: their static imports, followed
 * (not dynamic imports, which load later, nor imports of types only, which leave no code).
 */
function loadedWith(result: ICruiseResult, entries: string[]): Map<string, string> {
  const modules = new Map(result.modules.map((m) => [m.source, m]));
  const importedBy = new Map(entries.map((entry) => [entry, ""]));
  const queue = [...entries];
  for (let source = queue.shift(); source !== undefined; source = queue.shift()) {
    for (const dependency of modules.get(source)?.dependencies ?? []) {
      if (dependency.dynamic || dependency.dependencyTypes.includes("type-only")) continue;
      if (importedBy.has(dependency.resolved)) continue;
      importedBy.set(dependency.resolved, source);
      queue.push(dependency.resolved);
    }
  }
  return importedBy;
}

describe("layers", () => {
  // A few seconds alone; the bound is for a machine busy with other test runs.
  it("has no import circle and no import against the layer table", { timeout: 300_000 }, async () => {
    const result = await graph();
    const comments = new Map(config.forbidden.map((rule) => [rule.name ?? "", rule.comment ?? ""]));
    const known = new Set(
      KNOWN_VIOLATIONS.flatMap(({ rule, from, to }) => to.map((target) => key(rule, from, target))),
    );
    const seen = new Set<string>();
    const fresh: string[] = [];
    for (const violation of result.summary.violations) {
      const id = key(violation.rule.name, violation.from, violation.to);
      if (known.has(id)) seen.add(id);
      else fresh.push(describeViolation(violation, comments));
    }
    const gone = [...known].filter((id) => !seen.has(id));
    expect(
      fresh.length,
      `Imports against the layer table (docs/architecture.md, "Layers"):\n  ${fresh.join("\n  ")}\n`,
    ).toBe(0);
    expect(
      gone.length,
      `Exceptions that no longer happen: delete them from scripts/layer-exceptions.ts\n  ${gone.join("\n  ")}\n`,
    ).toBe(0);
  });

  // zod's code and the building of its schemas held a reload's main thread ~40 ms before a
  // reopened file's text showed (docs/ide.md, "Opening a file"). The IDE's first screen and the
  // live document a reopened tab connects to as its text shows read what they read with valibot.
  it("loads no zod with the IDE's first screen", { timeout: 300_000 }, async () => {
    const loaded = loadedWith(await graph(), ["app/p/[projectId]/page.tsx", "lib/live-doc-connection.ts"]);
    const sources = [...loaded.keys()];
    expect(sources).toContain("components/ide/ide-view.tsx");
    expect(sources.some((source) => source.startsWith("node_modules/yjs/"))).toBe(true);
    const chains = sources
      .filter((source) => source.startsWith("node_modules/zod/"))
      .map((source) => {
        const chain = [];
        for (let at: string | undefined = source; at; at = loaded.get(at)) chain.push(at);
        return chain.join(" <- ");
      });
    expect(chains, "zod is imported by the first screen's code through").toEqual([]);
  });
});
