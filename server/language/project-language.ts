import { glob } from "tinyglobby";
import type {
  Diagnostic,
  DocumentSymbol,
  Location,
  LocationLink,
  SymbolInformation,
  TextEdit,
  WorkspaceEdit,
  WorkspaceSymbol,
} from "vscode-languageserver-protocol";
import type { FileChange } from "@/lib/fs-schemas";
import type { Workspace } from "@/server/workspace";
import { AGENT_OPENER, pathOfUri, readDocumentText, uriOfPath } from "./documents";
import { RepoMap, type RenderedMap, type RepoMapOptions } from "./repo-map/repo-map";
import type { LanguageServerHub } from "./hub";
import type { LanguageRegistry } from "./registry";
import { symbolKindName } from "@/lib/language-protocol";

// What the agent's tools ask a project's language servers, in workspace paths and 1-based
// lines and columns. Files the agent asks about are held open by the hub (as AGENT_OPENER) and
// follow the disk, so the answers match what is saved. Every file is read through the workspace.

export type Severity = "error" | "warning" | "info" | "hint";
export type Problem = {
  path: string;
  line: number;
  column: number;
  severity: Severity;
  message: string;
  code?: string | number;
  source?: string;
};
export type Place = { path: string; line: number; column: number; endLine: number; endColumn: number };
export type SymbolEntry = Place & { name: string; kind: string; container?: string };

const SEVERITIES: Severity[] = ["error", "warning", "info", "hint"];
/** Cold servers load the whole project before their first answer. */
const FIRST_DIAGNOSTICS_MS = 10_000;
const AFTER_CHANGE_MS = 5_000;
/**
 * How long a server must stay quiet after publishing before its diagnostics count as complete:
 * TypeScript publishes syntax errors first and type errors after its checker ran, which on a busy
 * machine can be seconds later.
 */
const FIRST_QUIET_MS = 1_500;
const CHANGE_QUIET_MS = 1_000;

export class LanguageUnavailable extends Error {}

export class ProjectLanguage {
  private readonly map: RepoMap;

  constructor(
    private readonly workspace: Workspace,
    private readonly hubFor: (serverId: string) => LanguageServerHub,
    /** The project's servers now: the built-in ones and those its settings add. */
    private readonly registry: () => Promise<LanguageRegistry>,
  ) {
    this.map = new RepoMap(workspace);
  }

  private get root(): string {
    return this.workspace.root;
  }

  /** The repository map (built on first use, then kept current by `filesChanged`). */
  repoMap(options: RepoMapOptions = {}): Promise<RenderedMap> {
    return this.map.render(options);
  }

  /** From the workspace's change stream. */
  filesChanged(changes: readonly FileChange[]): Promise<void> {
    return this.map.filesChanged(changes);
  }

  /** Whether a language server covers this file. */
  async covers(file: string): Promise<boolean> {
    return (await this.registry()).languageOf(file) !== undefined;
  }

  private async open(file: string): Promise<{ hub: LanguageServerHub; uri: string }> {
    const registry = await this.registry();
    const language = registry.languageOf(file);
    if (!language)
      throw new LanguageUnavailable(`No language server covers '${file}'. Covered: ${registry.covered()}.`);
    const hub = this.hubFor(language.spec.id);
    const uri = uriOfPath(this.root, file);
    if (hub.isOpen(uri)) await hub.followDisk(uri);
    else {
      const read = await this.workspace.read(file);
      if (read.kind !== "text")
        throw new LanguageUnavailable(`'${file}' is not a text file; language servers read only source files.`);
      hub.hold(uri, AGENT_OPENER, language.languageId, read.content);
    }
    await hub.start();
    return { hub, uri };
  }

  /** A file's problems (waiting for the server's first answer), or those of every file any server has reported on. */
  async problems(file?: string): Promise<Problem[]> {
    if (file) {
      const { hub, uri } = await this.open(file);
      const known = hub.diagnosticsOf(uri);
      const items =
        known?.items ??
        (await hub.waitForDiagnostics(uri, 0, { quietMs: FIRST_QUIET_MS, timeoutMs: FIRST_DIAGNOSTICS_MS })) ??
        [];
      return items.map((d) => this.problem(file, d));
    }
    const problems: Problem[] = [];
    for (const spec of (await this.registry()).specs) {
      const hub = this.hubFor(spec.id);
      for (const [uri, items] of hub.allDiagnostics()) {
        const relative = pathOfUri(this.root, uri);
        if (relative) problems.push(...items.map((d) => this.problem(relative, d)));
      }
    }
    return problems.sort(
      (a, b) =>
        SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
        a.path.localeCompare(b.path) ||
        a.line - b.line,
    );
  }

  private problem(file: string, d: Diagnostic): Problem {
    return {
      path: file,
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
      severity: SEVERITIES[(d.severity ?? 1) - 1] ?? "error",
      message: typeof d.message === "string" ? d.message : d.message.value,
      ...(d.code !== undefined ? { code: d.code } : {}),
      ...(d.source ? { source: d.source } : {}),
    };
  }

  /** Errors of the covered files among `files` before a change (what `newErrors` compares with). */
  async errorsBefore(files: readonly string[]): Promise<Map<string, Problem[]>> {
    const before = new Map<string, Problem[]>();
    for (const file of files) {
      if (!(await this.covers(file))) continue;
      const exists = await this.workspace.stat(file).then(
        (info) => info.type === "file",
        () => false,
      );
      before.set(file, exists ? (await this.problems(file)).filter((p) => p.severity === "error") : []);
    }
    return before;
  }

  /** The errors in `before`'s files after a change that were not there before (matched by code and message, since lines move). */
  async newErrors(before: Map<string, Problem[]>): Promise<Problem[]> {
    const found: Problem[] = [];
    for (const [file, previous] of before) {
      const { hub, uri } = await this.open(file);
      const seq = hub.diagnosticsSeq;
      await hub.followDisk(uri);
      const items =
        (await hub.waitForDiagnostics(uri, seq, { quietMs: CHANGE_QUIET_MS, timeoutMs: AFTER_CHANGE_MS })) ?? [];
      const seen = new Map<string, number>();
      for (const p of previous) seen.set(key(p), (seen.get(key(p)) ?? 0) + 1);
      for (const problem of items.map((d) => this.problem(file, d)).filter((p) => p.severity === "error")) {
        const left = seen.get(key(problem)) ?? 0;
        if (left > 0) seen.set(key(problem), left - 1);
        else found.push(problem);
      }
    }
    return found;
  }

  async documentSymbols(file: string): Promise<SymbolEntry[]> {
    const { hub, uri } = await this.open(file);
    const result = await hub.request<(DocumentSymbol | SymbolInformation)[] | null>("textDocument/documentSymbol", {
      textDocument: { uri },
    });
    const out: SymbolEntry[] = [];
    const walk = (symbol: DocumentSymbol | SymbolInformation, container?: string) => {
      if ("location" in symbol) {
        out.push({
          name: symbol.name,
          kind: symbolKindName(symbol.kind),
          ...this.place(symbol.location)!,
          ...(symbol.containerName ? { container: symbol.containerName } : {}),
        });
        return;
      }
      out.push({
        name: symbol.name,
        kind: symbolKindName(symbol.kind),
        ...this.place({ uri, range: symbol.selectionRange })!,
        ...(container ? { container } : {}),
      });
      for (const child of symbol.children ?? []) walk(child, symbol.name);
    };
    for (const symbol of result ?? []) walk(symbol);
    return out;
  }

  /** Workspace symbols matching `query` from every language present (servers need one open file to know the project). */
  async workspaceSymbols(query: string): Promise<SymbolEntry[]> {
    const out: SymbolEntry[] = [];
    const registry = await this.registry();
    for (const spec of registry.specs.filter((s) => s.files || s.id === "typescript" || s.id === "python")) {
      const sample = await this.sampleFile(spec.files ?? Object.keys(spec.extensions).map((e) => `*${e}`));
      if (!sample) continue;
      const { hub } = await this.open(sample);
      const result = await hub.request<(SymbolInformation | WorkspaceSymbol)[] | null>("workspace/symbol", { query });
      for (const symbol of result ?? []) {
        if (!("range" in symbol.location)) continue;
        const place = await this.namePlace(symbol.name, symbol.location as Location);
        if (place && !place.path.includes("node_modules/"))
          out.push({
            name: symbol.name,
            kind: symbolKindName(symbol.kind),
            ...place,
            ...(symbol.containerName ? { container: symbol.containerName } : {}),
          });
      }
    }
    return out;
  }

  /** Servers give a symbol's whole declaration; a position for definition, references or rename must be on its name. */
  private async namePlace(name: string, location: Location): Promise<Place | null> {
    const place = this.place(location);
    if (!place) return null;
    const text = await readDocumentText(this.workspace, place.path);
    const lines = text?.split("\n").slice(place.line - 1, place.endLine) ?? [];
    for (const [i, line] of lines.entries()) {
      const column = line.indexOf(name, i === 0 ? place.column - 1 : 0);
      if (column >= 0)
        return {
          ...place,
          line: place.line + i,
          column: column + 1,
          endLine: place.line + i,
          endColumn: column + 1 + name.length,
        };
    }
    return place;
  }

  /** A file matching one of these globs (a glob without `/` matches a name anywhere). */
  private async sampleFile(globs: readonly string[]): Promise<string | undefined> {
    const [first] = await glob(
      globs.map((g) => (g.includes("/") ? g : `**/${g}`)),
      {
        cwd: this.root,
        followSymbolicLinks: false,
        ignore: ["**/node_modules/**", "**/.git/**", "**/.tandem/**", "**/*.d.ts"],
      },
    );
    return first;
  }

  async definition(file: string, line: number, column: number): Promise<Place[]> {
    return this.locations("textDocument/definition", file, line, column);
  }

  async references(file: string, line: number, column: number): Promise<Place[]> {
    return this.locations("textDocument/references", file, line, column, { context: { includeDeclaration: true } });
  }

  private async locations(
    method: string,
    file: string,
    line: number,
    column: number,
    extra: object = {},
  ): Promise<Place[]> {
    const { hub, uri } = await this.open(file);
    const result = await hub.request<Location | Location[] | LocationLink[] | null>(method, {
      textDocument: { uri },
      position: { line: line - 1, character: column - 1 },
      ...extra,
    });
    const list = result ? (Array.isArray(result) ? result : [result]) : [];
    return list
      .map((l) => ("targetUri" in l ? this.place({ uri: l.targetUri, range: l.targetSelectionRange }) : this.place(l)))
      .filter((p): p is Place => p !== null);
  }

  /** The server's rename as whole-file texts: workspace path → new content. */
  async renameEdits(file: string, line: number, column: number, newName: string): Promise<Map<string, TextEdit[]>> {
    const { hub, uri } = await this.open(file);
    const edit = await hub.request<WorkspaceEdit | null>("textDocument/rename", {
      textDocument: { uri },
      position: { line: line - 1, character: column - 1 },
      newName,
    });
    const byPath = new Map<string, TextEdit[]>();
    const add = (target: string, edits: TextEdit[]) => {
      const relative = pathOfUri(this.root, target);
      if (!relative || relative.startsWith("node_modules/"))
        throw new LanguageUnavailable(
          `The rename would change '${target}', outside the project's own files; it was not applied.`,
        );
      byPath.set(relative, [...(byPath.get(relative) ?? []), ...edits]);
    };
    for (const [target, edits] of Object.entries(edit?.changes ?? {})) add(target, edits);
    for (const change of edit?.documentChanges ?? []) {
      if (!("textDocument" in change))
        throw new LanguageUnavailable("The rename would create, move or delete files; Tandem applies only text edits.");
      add(change.textDocument.uri, change.edits as TextEdit[]);
    }
    return byPath;
  }

  /** The text an editor has for a file when it differs from `saved` (unsaved changes), else undefined. */
  async unsavedText(file: string, saved: string): Promise<string | undefined> {
    const language = (await this.registry()).languageOf(file);
    if (!language) return undefined;
    const document = this.hubFor(language.spec.id).documentOf(uriOfPath(this.root, file));
    return document?.inEditor && document.text !== saved ? document.text : undefined;
  }

  private place(location: Location): Place | null {
    const relative = pathOfUri(this.root, location.uri);
    if (relative === null) return null;
    const { start, end } = location.range;
    return {
      path: relative,
      line: start.line + 1,
      column: start.character + 1,
      endLine: end.line + 1,
      endColumn: end.character + 1,
    };
  }
}

function key(problem: Problem): string {
  return `${problem.code ?? ""}|${problem.message}`;
}
