import type { FileTags } from "./tags";

export type RankedDefinition = { file: string; name: string; kind: string; line: number; rank: number };

const DAMPING = 0.85;
const ITERATIONS = 25;

/**
 * Aider's ranking: a graph whose nodes are files and whose edges go from a file to each file
 * defining a name it refers to (weighted by the square root of the number of references, more
 * for long specific names, less for private ones and names defined in many places, much more from
 * the files in focus); PageRank over it; each file's rank shared out among the definitions its
 * referrers use. Definitions nobody refers to come last, in file order.
 */
export function rankDefinitions(tags: ReadonlyMap<string, FileTags>, focus: ReadonlySet<string>): RankedDefinition[] {
  const definers = new Map<string, string[]>();
  for (const [file, fileTags] of tags) {
    for (const definition of fileTags.definitions) {
      const list = definers.get(definition.name);
      if (!list) definers.set(definition.name, [file]);
      else if (list.at(-1) !== file) list.push(file);
    }
  }
  const files = [...tags.keys()];
  const index = new Map(files.map((file, i) => [file, i]));
  type Edge = { to: number; name: string; weight: number };
  const edges: Edge[][] = files.map(() => []);
  for (const [file, fileTags] of tags) {
    const from = index.get(file)!;
    for (const [name, count] of fileTags.references) {
      const targets = definers.get(name);
      if (!targets) continue;
      let weight = Math.sqrt(count);
      if (name.length >= 8 && /[a-z][A-Z]|_/.test(name)) weight *= 10;
      if (name.startsWith("_")) weight *= 0.1;
      if (targets.length > 5) weight *= 0.1;
      if (focus.has(file)) weight *= 50;
      for (const target of targets) if (target !== file) edges[from]!.push({ to: index.get(target)!, name, weight });
    }
  }
  const n = files.length;
  if (n === 0) return [];
  const personal = files.map((file) => (focus.size === 0 ? 1 / n : focus.has(file) ? 1 / focus.size : 0));
  const outWeight = edges.map((list) => list.reduce((sum, edge) => sum + edge.weight, 0));
  let rank = [...personal];
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    const next = personal.map((p) => (1 - DAMPING) * p);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      if (outWeight[i] === 0) {
        dangling += rank[i]!;
        continue;
      }
      for (const edge of edges[i]!) next[edge.to]! += (DAMPING * rank[i]! * edge.weight) / outWeight[i]!;
    }
    for (let i = 0; i < n; i++) next[i]! += DAMPING * dangling * personal[i]!;
    rank = next;
  }
  const definitionRank = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    for (const edge of edges[i]!) {
      const key = `${edge.to}\0${edge.name}`;
      definitionRank.set(key, (definitionRank.get(key) ?? 0) + (rank[i]! * edge.weight) / outWeight[i]!);
    }
  }
  const ranked: RankedDefinition[] = [];
  for (const [file, fileTags] of tags) {
    const i = index.get(file)!;
    for (const definition of fileTags.definitions) {
      ranked.push({ file, ...definition, rank: definitionRank.get(`${i}\0${definition.name}`) ?? 0 });
    }
  }
  // Plain comparison, not localeCompare: most definitions tie at rank 0 and this sort runs on every render.
  return ranked.sort((a, b) => b.rank - a.rank || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
}
