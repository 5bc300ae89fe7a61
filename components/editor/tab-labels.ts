import { baseName, parentOf } from "@/components/ui/paths";

/**
 * For each open path whose file name another open path shares, the shortest end of its folder
 * that tells it apart from the others of that name (VS Code's tab description): `src/a/utils.ts`
 * and `src/b/utils.ts` get `a` and `b`; `lib/x/utils.ts` and `app/x/utils.ts` get `lib/x` and
 * `app/x`. A path with a unique name, or a file at the root, gets nothing.
 */
export function tabFolders(paths: readonly string[]): Map<string, string> {
  const byName = new Map<string, string[][]>();
  for (const path of paths) {
    const folders = parentOf(path) ? parentOf(path).split("/") : [];
    const group = byName.get(baseName(path)) ?? [];
    group.push(folders);
    byName.set(baseName(path), group);
  }
  const out = new Map<string, string>();
  for (const [name, group] of byName) {
    if (group.length < 2) continue;
    for (const folders of group) {
      if (folders.length === 0) continue;
      const tail = (of: string[], length: number) => of.slice(Math.max(0, of.length - length)).join("/");
      let length = 1;
      while (
        length < folders.length &&
        group.some((other) => other !== folders && tail(other, length) === tail(folders, length))
      )
        length += 1;
      out.set(`${folders.join("/")}/${name}`, tail(folders, length));
    }
  }
  return out;
}
