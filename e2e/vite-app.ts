import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

// A real Vite dev server's app, for the tests and benchmarks of the preview (e2e/17-preview-panel,
// bench/preview.ts).

/**
 * Vite from Tandem's own node_modules (a devDependency, installed from the npm registry), copied
 * into the workspace with the packages it needs: faster and surer than an install through the
 * egress proxy, and the sandbox sees nothing outside the workspace.
 */
export async function copyVite(workspace: string) {
  const seen = new Set<string>();
  const copy = async (name: string) => {
    const from = path.join("node_modules", name);
    if (seen.has(name) || !existsSync(from)) return;
    seen.add(name);
    await fs.cp(from, path.join(workspace, "node_modules", name), { recursive: true, dereference: true });
    const manifest = JSON.parse(readFileSync(path.join(from, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }))
      await copy(dependency);
  };
  await copy("vite");
  await fs.mkdir(path.join(workspace, "node_modules", ".bin"), { recursive: true });
  await fs.symlink("../vite/bin/vite.js", path.join(workspace, "node_modules", ".bin", "vite"));
}
