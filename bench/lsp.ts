// Language servers and the repository map, against the tools they stand in for, in one run.
// Run with `npm run bench:lsp`. Prints times, ratios and memory; exits non-zero when a target is missed.
//  - A generated 1,000-file TypeScript project: time from asking for one file's diagnostics (cold
//    server: start, project load, check) to the answer, against `tsc --noEmit` on the same project.
//  - Memory of each language server (its whole process tree) once it has answered.
//  - The repository map of 10,000 files: build time against `rg --files`, and the update after one change.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { rgPath } from "@vscode/ripgrep";
import { createLanguageServers } from "@/server/language/language-servers";
import { RepoMap } from "@/server/language/repo-map/repo-map";
import { processTreePids } from "@/server/terminal/process-tree";
import { bwrapAvailable } from "@/server/sandbox/launcher";
import { testSandbox } from "@/server/test/sandbox";
import { Workspace } from "@/server/workspace";

const require = createRequire(import.meta.url);
/** The server may take this much longer than a one-shot `tsc` (it also starts and loads a project). */
const FIRST_DIAGNOSTICS_TARGET = 3;
/** Tagging 10,000 files may cost this many times listing them. */
const MAP_BUILD_TARGET = 400;
/** Re-tagging one file and re-ranking may cost this share of building the whole map. */
const MAP_UPDATE_TARGET = 0.1;

function tsProject(root: string, files: number): void {
  mkdirSync(path.join(root, "src"), { recursive: true });
  writeFileSync(
    path.join(root, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "es2022",
        module: "esnext",
        moduleResolution: "bundler",
        noEmit: true,
        skipLibCheck: true,
      },
      include: ["src"],
    }),
  );
  for (let i = 0; i < files; i++) {
    const imports =
      i === 0
        ? ""
        : `import { make${i - 1}, type Shape${i - 1} } from "./module${i - 1}";\n` +
          (i > 1 ? `import { make${Math.floor(i / 2)} } from "./module${Math.floor(i / 2)}";\n` : "");
    const body = `
export interface Shape${i} { id: number; name: string; size: number; parent?: ${i === 0 ? "number" : `Shape${i - 1}`} }
export function make${i}(id: number): Shape${i} {
  ${i === 0 ? "return { id, name: String(id), size: id };" : `const parent: Shape${i - 1} = make${i - 1}(id - 1);\n  return { id, name: parent.name + "${i}", size: parent.size + 1, parent };`}
}
export class Registry${i} {
  private readonly items = new Map<number, Shape${i}>();
  add(shape: Shape${i}): void { this.items.set(shape.id, shape); }
  total(): number { let sum = 0; for (const item of this.items.values()) sum += item.size; return sum; }
}
`;
    const error = i === files - 1 ? `export const wrong: number = "${i}";\n` : "";
    writeFileSync(path.join(root, "src", `module${i}.ts`), imports + body + error);
  }
}

function time<T>(run: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = run();
  return { ms: performance.now() - start, value };
}

async function timeAsync<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await run();
  return { ms: performance.now() - start, value };
}

function rssMb(pid: number | undefined): number {
  if (!pid) return 0;
  let kb = 0;
  for (const member of processTreePids(pid)) {
    const status = (() => {
      try {
        return readFileSync(`/proc/${member}/status`, "utf8");
      } catch {
        return "";
      }
    })();
    kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return kb / 1024;
}

function rgFiles(root: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(rgPath, ["--files"], { cwd: root, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.on("data", () => undefined);
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - start));
  });
}

async function main(): Promise<void> {
  const base = mkdtempSync(path.join(tmpdir(), "tandem-bench-lsp-"));
  const failures: string[] = [];
  const servers = createLanguageServers({ sandbox: testSandbox((await bwrapAvailable()) ? "bwrap" : "none") });
  try {
    const project = path.join(base, "ts");
    tsProject(project, 1_000);
    const tsc = time(() => {
      try {
        execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "--noEmit", "-p", project], {
          stdio: "ignore",
        });
      } catch {
        // The project has one deliberate error: tsc exits 2.
      }
    });
    const tsWorkspace = await Workspace.open(project);
    const language = servers.forProject("bench-ts", tsWorkspace);
    const first = await timeAsync(() => language.problems("src/module999.ts"));
    if (!first.value.some((p) => p.severity === "error"))
      failures.push("the server did not report the deliberate error");
    const ratio = first.ms / tsc.ms;
    console.log(
      `first diagnostics, 1,000 files: server ${first.ms.toFixed(0)} ms, tsc --noEmit ${tsc.ms.toFixed(0)} ms, ratio ${ratio.toFixed(2)} (target <= ${FIRST_DIAGNOSTICS_TARGET})`,
    );
    if (ratio > FIRST_DIAGNOSTICS_TARGET) failures.push(`first diagnostics ${ratio.toFixed(2)}x tsc`);
    const again = await timeAsync(() => language.problems("src/module500.ts"));
    console.log(`diagnostics of another file, warm server: ${again.ms.toFixed(0)} ms`);
    console.log(
      `memory, typescript server (language server + tsserver + sandbox): ${rssMb(servers.hub("bench-ts", tsWorkspace, "typescript").pid).toFixed(0)} MB`,
    );

    const py = path.join(base, "py");
    mkdirSync(py);
    for (let i = 0; i < 200; i++)
      writeFileSync(
        path.join(py, `mod${i}.py`),
        `${i > 0 ? `from mod${i - 1} import make${i - 1}\n` : ""}\ndef make${i}(n: int) -> int:\n    return ${i > 0 ? `make${i - 1}(n) + 1` : "n"}\n`,
      );
    const pyWorkspace = await Workspace.open(py);
    const pyLanguage = servers.forProject("bench-py", pyWorkspace);
    const pyFirst = await timeAsync(() => pyLanguage.problems("mod199.py"));
    console.log(
      `first diagnostics, 200 Python files (pyright): ${pyFirst.ms.toFixed(0)} ms; memory ${rssMb(servers.hub("bench-py", pyWorkspace, "python").pid).toFixed(0)} MB`,
    );

    const big = path.join(base, "map");
    mkdirSync(path.join(big, "src"), { recursive: true });
    for (let i = 0; i < 10_000; i++) {
      const dir = path.join(big, "src", `pkg${i % 100}`);
      if (i < 100) mkdirSync(dir, { recursive: true });
      const uses = i > 0 ? `import { service${i - 1} } from "../pkg${(i - 1) % 100}/file${i - 1}";\n` : "";
      writeFileSync(
        path.join(dir, `file${i}.ts`),
        `${uses}export function service${i}(input: number): number {\n  return ${i > 0 ? `service${i - 1}(input) + ` : ""}${i};\n}\nexport interface Options${i} { depth: number }\n`,
      );
    }
    const rg = await rgFiles(big);
    const map = new RepoMap(await Workspace.open(big));
    const build = await timeAsync(() => map.render({ maxTokens: 1024 }));
    console.log(
      `repo map, 10,000 files: build ${build.ms.toFixed(0)} ms, rg --files ${rg.toFixed(0)} ms, ratio ${(build.ms / rg).toFixed(1)} (target <= ${MAP_BUILD_TARGET}); ${build.value.shownDefinitions} of ${build.value.definitions} definitions shown`,
    );
    if (build.ms / rg > MAP_BUILD_TARGET) failures.push(`repo map build ${(build.ms / rg).toFixed(1)}x rg --files`);
    writeFileSync(
      path.join(big, "src/pkg7/file7.ts"),
      "export function service7(input: number): number {\n  return input;\n}\nexport function brandNew() {}\n",
    );
    const update = await timeAsync(async () => {
      await map.filesChanged([{ type: "change", path: "src/pkg7/file7.ts" }]);
      return map.render({ maxTokens: 1024 });
    });
    const share = update.ms / build.ms;
    console.log(
      `repo map, update after one change (re-tag + re-rank + render): ${update.ms.toFixed(0)} ms, ${(share * 100).toFixed(1)}% of the build (target <= ${MAP_UPDATE_TARGET * 100}%)`,
    );
    if (!update.value.text.includes("brandNew") && update.value.shownDefinitions === update.value.definitions)
      failures.push("the update lost the new definition");
    if (share > MAP_UPDATE_TARGET) failures.push(`repo map update ${(share * 100).toFixed(1)}% of the build`);
  } finally {
    await servers.dispose();
    rmSync(base, { recursive: true, force: true });
  }
  if (failures.length) {
    console.error(`missed: ${failures.join("; ")}`);
    process.exit(1);
  }
}

await main();
