import { diff3Merge, diffIndices } from "node-diff3";

const LABELS = { mine: "your unsaved changes", theirs: "on disk" };

/**
 * A three-way merge by lines (node-diff3) of what the buffer was loaded from (`base`), the buffer
 * (`mine`) and the file as it is on disk now (`theirs`): changes to different lines combine;
 * where both sides changed the same lines, both versions stay between git-style markers for the
 * person to resolve. Line endings travel with their lines.
 */
export function mergeText(
  base: string,
  mine: string,
  theirs: string,
  labels: { mine: string; theirs: string } = LABELS,
): { text: string; conflicts: number } {
  const lines = (text: string) => text.split("\n");
  const out: string[] = [];
  let conflicts = 0;
  for (const region of diff3Merge(lines(mine), lines(base), lines(theirs), { excludeFalseConflicts: true })) {
    if (region.ok) out.push(...region.ok);
    else if (region.conflict) {
      conflicts++;
      out.push(
        `<<<<<<< ${labels.mine}`,
        ...region.conflict.a,
        "=======",
        ...region.conflict.b,
        `>>>>>>> ${labels.theirs}`,
      );
    }
  }
  return { text: out.join("\n"), conflicts };
}

/** One replacement in a text: `remove` characters at `at` give way to `insert`. */
export type TextEdit = { at: number; remove: number; insert: string };

/**
 * The edits that turn `from` into `to`, as small as a line diff narrowed to the characters that
 * differ, in ascending order and in `from`'s offsets (apply them last to first). Text between two
 * edits is never touched, so someone typing there meanwhile keeps what they typed.
 */
export function textEdits(from: string, to: string): TextEdit[] {
  if (from === to) return [];
  // Lines keep their "\n", so offsets add up exactly and a missing final newline is just a change.
  const lines = (text: string) => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const a = lines(from);
  const starts = [0];
  for (const line of a) starts.push(starts[starts.length - 1] + line.length);
  const edits: TextEdit[] = [];
  for (const hunk of diffIndices(a, lines(to))) {
    const [line, count] = hunk.buffer1;
    const removed = hunk.buffer1Content.join("");
    const inserted = hunk.buffer2Content.join("");
    let prefix = 0;
    while (prefix < removed.length && prefix < inserted.length && removed[prefix] === inserted[prefix]) prefix++;
    let suffix = 0;
    while (
      suffix < removed.length - prefix &&
      suffix < inserted.length - prefix &&
      removed[removed.length - 1 - suffix] === inserted[inserted.length - 1 - suffix]
    )
      suffix++;
    edits.push({
      at: starts[line] + prefix,
      remove: starts[line + count] - starts[line] - prefix - suffix,
      insert: inserted.slice(prefix, inserted.length - suffix),
    });
  }
  return edits;
}

/**
 * A change on disk as edits to a buffer that moved on since the disk's last version (`base` ->
 * `mine`, unsaved typing; `base` -> `theirs`, the disk's change), in `mine`'s offsets: the disk's
 * edits shifted past the typing before them, so typing on the next line or the same line
 * elsewhere merges cleanly. Where a change on disk overlaps the typing, the whole file is merged
 * by lines instead (mergeText), both versions between markers, and `conflicts` counts them.
 */
export function mergeAsEdits(
  base: string,
  mine: string,
  theirs: string,
  labels: { mine: string; theirs: string } = LABELS,
): { edits: TextEdit[]; conflicts: number } {
  const local = textEdits(base, mine);
  const remote = textEdits(base, theirs);
  const overlaps = (r: TextEdit, l: TextEdit) =>
    (r.at < l.at + l.remove && l.at < r.at + r.remove) ||
    (l.remove === 0 && r.at < l.at && l.at < r.at + r.remove) ||
    (r.remove === 0 && l.at < r.at && r.at < l.at + l.remove);
  if (remote.some((r) => local.some((l) => overlaps(r, l)))) {
    const merged = mergeText(base, mine, theirs, labels);
    return { edits: textEdits(mine, merged.text), conflicts: merged.conflicts };
  }
  const edits = remote.map((r) => {
    let shift = 0;
    for (const l of local) if (l.at + l.remove <= r.at) shift += l.insert.length - l.remove;
    return { ...r, at: r.at + shift };
  });
  return { edits, conflicts: 0 };
}

/** `text` with `edits` (from textEdits) applied. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].reverse()) out = out.slice(0, edit.at) + edit.insert + out.slice(edit.at + edit.remove);
  return out;
}
