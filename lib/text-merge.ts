import { diff3Merge } from "node-diff3";

const MINE_LABEL = "your unsaved changes";
const THEIRS_LABEL = "on disk";

/**
 * A three-way merge by lines (node-diff3) of what the buffer was loaded from (`base`), the buffer
 * (`mine`) and the file as it is on disk now (`theirs`): changes to different lines combine;
 * where both sides changed the same lines, both versions stay between git-style markers for the
 * person to resolve. Line endings travel with their lines.
 */
export function mergeText(base: string, mine: string, theirs: string): { text: string; conflicts: number } {
  const lines = (text: string) => text.split("\n");
  const out: string[] = [];
  let conflicts = 0;
  for (const region of diff3Merge(lines(mine), lines(base), lines(theirs), { excludeFalseConflicts: true })) {
    if (region.ok) out.push(...region.ok);
    else if (region.conflict) {
      conflicts++;
      out.push(
        `<<<<<<< ${MINE_LABEL}`,
        ...region.conflict.a,
        "=======",
        ...region.conflict.b,
        `>>>>>>> ${THEIRS_LABEL}`,
      );
    }
  }
  return { text: out.join("\n"), conflicts };
}
