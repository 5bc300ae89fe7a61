import ignore, { type Ignore } from "ignore";
import { statBeneath } from "./beneath";
import { readRegular } from "./beneath-files";

interface Level {
  /** Root-relative POSIX folder the rules belong to; "" for the root. */
  base: string;
  rules: Ignore;
}

/** A .gitignore is a few kilobytes; a bigger one is not read (it is the workspace's, anyone's). */
const MAX_RULES_BYTES = 1024 * 1024;

interface CachedRules {
  stamp: string;
  rules: Ignore | null;
}

/** .gitignore rules of one workspace: the root file, nested files on the way down, and `.git` always. */
export class IgnoreRules {
  private readonly cache = new Map<string, CachedRules>();
  private readonly always = ignore().add(".git");

  constructor(private readonly root: string) {}

  /**
   * A predicate for the entries of folder `dir` (root-relative POSIX). As in git, nothing under an
   * ignored folder can be re-included by a deeper rule.
   */
  async forDirectory(dir: string): Promise<(name: string, isDirectory: boolean) => boolean> {
    const segments = dir === "" ? [] : dir.split("/");
    const levels: Level[] = [{ base: "", rules: this.always }];
    await this.push(levels, "");
    let folderIgnored = false;
    for (let i = 0; i < segments.length; i++) {
      const folder = segments.slice(0, i + 1).join("/");
      folderIgnored ||= matches(levels, folder, true);
      if (folderIgnored) break;
      await this.push(levels, folder);
    }
    if (folderIgnored) return () => true;
    return (name, isDirectory) => matches(levels, dir === "" ? name : `${dir}/${name}`, isDirectory);
  }

  private async push(levels: Level[], base: string): Promise<void> {
    const rules = await this.load(base);
    if (rules) levels.push({ base, rules });
  }

  /** The rules of `base`/.gitignore, opened beneath the root: only a regular file is read (never a FIFO), never a link out. */
  private async load(base: string): Promise<Ignore | null> {
    const file = base === "" ? ".gitignore" : `${base}/.gitignore`;
    const info = await statBeneath(this.root, file).catch(() => null);
    if (!info?.isFile()) return null;
    const stamp = `${info.mtimeMs}:${info.size}`;
    const cached = this.cache.get(file);
    if (cached?.stamp === stamp) return cached.rules;
    const read = await readRegular(this.root, file, `'${file}'`, MAX_RULES_BYTES).catch(() => null);
    const rules = read?.bytes ? ignore().add(read.bytes.toString("utf8")) : null;
    this.cache.set(file, { stamp, rules });
    return rules;
  }
}

/** Later (deeper) levels override earlier ones, as nested .gitignore files do in git. */
function matches(levels: readonly Level[], relPath: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const { base, rules } of levels) {
    if (base !== "" && !relPath.startsWith(`${base}/`)) continue;
    const sub = base === "" ? relPath : relPath.slice(base.length + 1);
    const result = rules.test(isDirectory ? `${sub}/` : sub);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}
