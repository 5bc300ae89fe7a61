export const MAX_LINE_CHARS = 2000;

export interface NumberedWindow {
  text: string;
  /** Lines in the whole text (a final newline does not start another line). */
  total: number;
  /** Last line shown (1-based). */
  end: number;
  cutLines: number;
}

/** cat -n style lines `offset..offset+limit-1`, each cut at MAX_LINE_CHARS. */
export function numberLines(content: string, offset: number, limit: number): NumberedWindow {
  if (content === "") return { text: "", total: 0, end: 0, cutLines: 0 };
  const lines = content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const end = Math.min(lines.length, offset + limit - 1);
  let cutLines = 0;
  const out: string[] = [];
  for (let n = offset; n <= end; n++) {
    let line = lines[n - 1]!;
    if (line.length > MAX_LINE_CHARS) {
      cutLines++;
      line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut: ${line.length} characters]`;
    }
    out.push(`${String(n).padStart(6)}\t${line}`);
  }
  return { text: out.join("\n"), total: lines.length, end, cutLines };
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
