import { createRequire } from "node:module";
import fs from "node:fs/promises";
import path from "node:path";

// The generated part of a task's repository: a few hundred plausible source and docs files
// around the task's own repo/, so the agent has to find its way as in a real project instead of
// reading every file. Deterministic (seeded by the task's name): every run, and every machine,
// sees the same repository. No tests are generated, so a task's test command stays as fast as
// its own tests. A TypeScript scaffold also gets the TypeScript compiler in node_modules, as a
// repository has after `npm ci`, because the sandbox has no network to install it.

export const scaffoldKinds = ["node", "typescript", "python"] as const;
export type ScaffoldKind = (typeof scaffoldKinds)[number];

const AREAS = ["billing", "accounts", "catalog", "orders", "search", "reports", "notices", "shipping", "audit", "auth"];
const NOUNS = ["invoice", "ledger", "item", "basket", "query", "summary", "message", "parcel", "entry", "token"];
const VERBS = ["format", "parse", "merge", "score", "group", "filter", "total", "validate", "normalise", "rank"];

function random(seed: string) {
  let state = [...seed].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type File = { path: string; content: string };

function moduleFiles(kind: ScaffoldKind, count: number, seed: string): File[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const files: File[] = [];
  const perArea = Math.max(1, Math.ceil(count / AREAS.length));
  for (let i = 0; files.length < count; i++) {
    const area = AREAS[Math.floor(i / perArea) % AREAS.length]!;
    const noun = pick(NOUNS);
    const name = `${noun}-${pick(VERBS)}-${i}`;
    const fns = [0, 1, 2].map((k) => `${pick(VERBS)}${noun[0]!.toUpperCase()}${noun.slice(1)}${k}`);
    const factor = 2 + Math.floor(next() * 9);
    if (i % 12 === 11) {
      files.push({
        path: `docs/${area}/${name}.md`,
        content: `# ${area}: ${noun}\n\nThe ${noun} helpers of ${area}: ${fns.join(", ")}. Each works on plain values and has no side effects.\n`,
      });
      continue;
    }
    if (kind === "python") {
      files.push({
        path: `lib_${area}/${name.replace(/-/g, "_")}.py`,
        content: `"""${noun} helpers of ${area}."""\n\n\n${fns
          .map(
            (fn, k) =>
              `def ${fn.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}(values):\n    return [v * ${factor + k} for v in values if v is not None]\n`,
          )
          .join("\n\n")}`,
      });
    } else if (kind === "typescript") {
      files.push({
        path: `src/lib/${area}/${name}.ts`,
        content: `// ${noun} helpers of ${area}.\n\n${fns
          .map(
            (fn, k) =>
              `export function ${fn}(values: readonly number[]): number[] {\n  return values.filter((v) => Number.isFinite(v)).map((v) => v * ${factor + k});\n}\n`,
          )
          .join("\n")}`,
      });
    } else {
      files.push({
        path: `packages/${area}/src/${name}.js`,
        content: `// ${noun} helpers of ${area}.\n\n${fns
          .map(
            (fn, k) =>
              `function ${fn}(values) {\n  return values.filter((v) => Number.isFinite(v)).map((v) => v * ${factor + k});\n}\n`,
          )
          .join("\n")}\nmodule.exports = { ${fns.join(", ")} };\n`,
      });
    }
  }
  return files;
}

/** The task's repository to import: the scaffold with repo/ over it, built in `into`. */
export async function buildScaffold(
  input: { kind: ScaffoldKind; files: number; seed: string; repoDir: string },
  into: string,
): Promise<void> {
  await fs.rm(into, { recursive: true, force: true });
  for (const file of moduleFiles(input.kind, input.files, input.seed)) {
    await fs.mkdir(path.dirname(path.join(into, file.path)), { recursive: true });
    await fs.writeFile(path.join(into, file.path), file.content);
  }
  if (input.kind === "typescript") await vendorTypeScript(path.join(into, "node_modules", "typescript"));
  await fs.cp(input.repoDir, into, { recursive: true, verbatimSymlinks: true });
}

/** Only what `tsc` needs (about 9 MB of the package's 23). */
async function vendorTypeScript(into: string) {
  const from = path.dirname(createRequire(import.meta.url).resolve("typescript/package.json"));
  const libs = (await fs.readdir(path.join(from, "lib"))).filter((f) => /^lib\..*\.d\.ts$/.test(f));
  for (const file of ["package.json", "bin/tsc", "lib/tsc.js", "lib/_tsc.js", ...libs.map((f) => `lib/${f}`)]) {
    await fs.mkdir(path.dirname(path.join(into, file)), { recursive: true });
    await fs.copyFile(path.join(from, file), path.join(into, file));
  }
  await fs.mkdir(path.join(into, "..", ".bin"), { recursive: true });
  await fs.symlink("../typescript/bin/tsc", path.join(into, "..", ".bin", "tsc"));
}
