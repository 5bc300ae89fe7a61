export const MAX_LINE_CHARS = 2000;

export interface NumberedWindow {
  text: string;
  /** Lines in the whole text (a final newline does not start another line). */
  total: number;
  /** Last line shown (1-based). */
  end: number;
  cutLines: number;
}

/**
 * cat -n style lines `offset..offset+limit-1`, each cut at MAX_LINE_CHARS, stopping early (after at
 * least one line) before the numbered text would pass `maxChars`.
 */
export function numberLines(content: string, offset: number, limit: number, maxChars = Infinity): NumberedWindow {
  if (content === "") return { text: "", total: 0, end: 0, cutLines: 0 };
  const lines = content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const last = Math.min(lines.length, offset + limit - 1);
  let cutLines = 0;
  let chars = 0;
  let end = offset - 1;
  const out: string[] = [];
  for (let n = offset; n <= last; n++) {
    let line = lines[n - 1]!;
    const cut = line.length > MAX_LINE_CHARS;
    if (cut) line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters]`;
    const numbered = `${String(n).padStart(6)}\t${line}`;
    if (out.length > 0 && chars + numbered.length + 1 > maxChars) break;
    if (cut) cutLines++;
    out.push(numbered);
    chars += numbered.length + 1;
    end = n;
  }
  return { text: out.join("\n"), total: lines.length, end, cutLines };
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
