import { listWorkspaceFiles } from "@/server/workspace/file-list";
import path from "node:path";
import type { FileChange } from "@/lib/fs-schemas";
import type { Workspace } from "@/server/workspace";
import { rankDefinitions } from "./rank";
import { TAGGED_EXTENSIONS, tagFile, type FileTags } from "./tags";

// A repository map in the style of Aider's: every source file's definitions (tree-sitter), the
// files ranked by how much the rest of the code refers to them (PageRank over the file graph),
// and as many of the best-ranked definitions as fit a token budget. Built once per project on
// first use, then kept up to date file by file from the workspace's change stream. Files are read
// through the workspace: a link leading out of it is never followed.

/** Generated and vendored code says little about the project and costs a lot to parse. */
const MAX_FILE_BYTES = 256 * 1024;
const MAX_FILES = 50_000;

export type RepoMapOptions = { maxTokens?: number; focus?: readonly string[] };
export type RenderedMap = {
  text: string;
  files: number;
  shownFiles: number;
  definitions: number;
  shownDefinitions: number;
};

export class RepoMap {
  private readonly tags = new Map<string, FileTags>();
  private building?: Promise<void>;
  private pending = new Set<string>();
  /** The last ranking and what it was computed from: renders without a change in between reuse it. */
  private ranking?: { generation: number; focus: string; ranked: ReturnType<typeof rankDefinitions> };
  private generation = 0;

  constructor(private readonly workspace: Workspace) {}

  get size(): number {
    return this.tags.size;
  }

  /** Tags every source file the first time; later calls wait for that same build. */
  ready(): Promise<void> {
    this.building ??= this.build();
    return this.building;
  }

  private async build(): Promise<void> {
    const files = await listSourceFiles(this.workspace.root);
    let next = 0;
    const worker = async () => {
      while (next < files.length) await this.retag(files[next++]!);
    };
    await Promise.all(Array.from({ length: 4 }, worker));
  }

  private async retag(file: string): Promise<void> {
    const bytes = await this.workspace.readBytes(file, MAX_FILE_BYTES).catch(() => null);
    const tags = bytes === null ? null : await tagFile(file, bytes.toString("utf8")).catch(() => null);
    if (tags) this.tags.set(file, tags);
    else this.tags.delete(file);
    this.generation++;
  }

  /** Applies changes from the workspace's change stream (before the first build they are left to it). */
  async filesChanged(changes: readonly FileChange[]): Promise<void> {
    if (!this.building) return;
    await this.building;
    for (const change of changes) {
      if (!TAGGED_EXTENSIONS.has(path.extname(change.path).toLowerCase()) || isVendored(change.path)) continue;
      if (change.type === "unlink") {
        this.tags.delete(change.path);
        this.generation++;
      } else if (change.type === "add" || change.type === "change") this.pending.add(change.path);
    }
    const paths = [...this.pending];
    this.pending.clear();
    for (const file of paths) await this.retag(file);
  }

  async render(options: RepoMapOptions = {}): Promise<RenderedMap> {
    await this.ready();
    const budget = (options.maxTokens ?? 1024) * 4; // ~4 characters a token
    const focus = [...(options.focus ?? [])].sort().join("\n");
    if (this.ranking?.generation !== this.generation || this.ranking.focus !== focus) {
      this.ranking = {
        generation: this.generation,
        focus,
        ranked: rankDefinitions(this.tags, new Set(options.focus ?? [])),
      };
    }
    const ranked = this.ranking.ranked;
    const byFile = new Map<string, string[]>();
    let size = 0;
    let shown = 0;
    for (const entry of ranked) {
      const lines = byFile.get(entry.file);
      const line = `  ${entry.line}: ${entry.kind} ${entry.name}`;
      const cost = line.length + 1 + (lines ? 0 : entry.file.length + 2);
      if (size + cost > budget) break;
      size += cost;
      shown++;
      if (lines) lines.push(line);
      else byFile.set(entry.file, [line]);
    }
    const text = [...byFile].map(([file, lines]) => `${file}:\n${lines.join("\n")}`).join("\n");
    return {
      text,
      files: this.tags.size,
      shownFiles: byFile.size,
      definitions: ranked.length,
      shownDefinitions: shown,
    };
  }
}

function isVendored(file: string): boolean {
  return file
    .split("/")
    .some(
      (segment) => segment === "node_modules" || segment === "dist" || segment === "build" || segment === ".tandem",
    );
}

/** Source files that git would not ignore: the workspace's one file listing (ripgrep), tagged kinds only. */
async function listSourceFiles(root: string): Promise<string[]> {
  const { files } = await listWorkspaceFiles(root, { exclude: ["node_modules", ".tandem"] });
  return files
    .filter((file) => [...TAGGED_EXTENSIONS].some((extension) => file.endsWith(extension)) && !isVendored(file))
    .slice(0, MAX_FILES);
}
