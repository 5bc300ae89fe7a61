// CSV as spreadsheets read it (RFC 4180 quoting). A cell that starts with = + - @ (or a tab or
// carriage return) is prefixed with ' so that a spreadsheet shows it instead of running it as a
// formula: names and hosts in an export were written by people and agents, not by the admin.

export type CsvValue = string | number | boolean | Date | null | undefined;

function cell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(header: string[], rows: CsvValue[][]): string {
  return `${[header, ...rows].map((row) => row.map(cell).join(",")).join("\r\n")}\r\n`;
}
