import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readFileTool } from "./read-file";
import { useToolSessions } from "@/server/test/tool-session";

const session = useToolSessions();

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** A one-page PDF with the text "Hello PDF", xref offsets computed. */
function tinyPdf(): Buffer {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    null,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  const stream = "BT /F1 12 Tf 20 100 Td (Hello PDF) Tj ET";
  objects[3] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

describe("read_file", () => {
  it("returns numbered lines, cat -n style", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "a.txt"), "one\r\ntwo\r\nthree\r\n");
    const run = await s.run(readFileTool, { path: "a.txt" });
    expect(run.llm).toBe("     1\tone\n     2\ttwo\n     3\tthree");
  });

  it("reads a window with offset and limit and says how to read on", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "a.txt"), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n"));
    const window = await s.run(readFileTool, { path: "a.txt", offset: 10, limit: 5 });
    expect(window.llm).toBe(
      "    10\tline 10\n    11\tline 11\n    12\tline 12\n    13\tline 13\n    14\tline 14\n[Showing lines 10-14 of 3000. To read more, call read_file with offset=15.]",
    );
    const next = await s.run(readFileTool, { path: "a.txt", offset: 2999, limit: 5 });
    expect(next.llm).toBe("  2999\tline 2999\n  3000\tline 3000");
  });

  it("reads the whole file without offset and limit: no 2,000-line window", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "a.txt"), Array.from({ length: 2400 }, (_, i) => `line ${i + 1}`).join("\n"));
    const run = await s.run(readFileTool, { path: "a.txt" });
    expect(run.metrics.truncated).toBe(false);
    expect(run.llm).toContain("  2400\tline 2400");
    expect(run.llm).not.toContain("[Showing");
    expect(run.meta).toMatchObject({ lines: 2400, totalLines: 2400 });
  });

  it("stops at the session's output cap, at a whole line, and says where to read on", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "many.txt"), Array.from({ length: 5000 }, (_, i) => `l${i + 1}`).join("\n"));
    const byLines = await s.run(readFileTool, { path: "many.txt" });
    expect(byLines.metrics.truncated).toBe(false);
    expect(byLines.llm).toContain("  2490\tl2490\n[Showing lines 1-2490 of 5000: one result holds at most 2,490 lines");
    expect(byLines.llm).toContain("offset=2491");
    const wide = "w".repeat(1_500);
    await writeFile(path.join(s.root, "wide.txt"), Array.from({ length: 200 }, () => wide).join("\n"));
    const byChars = await s.run(readFileTool, { path: "wide.txt", limit: 150 });
    expect(byChars.metrics.truncated).toBe(false);
    expect(byChars.llm).toContain(
      "[Showing lines 1-65 of 200: one result holds at most 2,490 lines and 99,000 characters",
    );
    expect(byChars.llm).toContain("offset=66");
  });

  it("reports an offset past the end", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "a.txt"), "a\nb\n");
    const run = await s.run(readFileTool, { path: "a.txt", offset: 10 });
    expect(run.error?.code).toBe("INVALID_INPUT");
    expect(run.llm).toContain("has 2 lines");
  });

  it("cuts a 10 MB single line to 2000 characters", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "big.min.js"), "x".repeat(10 * 1024 * 1024));
    const run = await s.run(readFileTool, { path: "big.min.js" });
    expect(run.error).toBeUndefined();
    expect(typeof run.llm === "string" && run.llm.length).toBeLessThan(3000);
    expect(run.llm).toContain("line cut: 10485760 characters");
  });

  it("summarizes a binary file instead of sending its bytes", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "blob.bin"), Buffer.from([0, 1, 2, 3, 0xff, 0, 7]));
    await writeFile(path.join(s.root, "noext"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1]));
    for (const name of ["blob.bin", "noext"]) {
      const run = await s.run(readFileTool, { path: name });
      expect(run.error).toBeUndefined();
      expect(run.llm).toContain("binary file");
      expect(run.llm).not.toContain("\u0000");
    }
    // A hex summary of the first bytes, as xxd shows them.
    expect((await s.run(readFileTool, { path: "noext" })).llm).toMatch(
      /00000000: 7f 45 4c 46 00 00 00 01 +\.ELF\.\.\.\./,
    );
  });

  it("returns an image as an image part, or a description for models without vision", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "dot.png"), PNG_1X1);
    const run = await s.run(readFileTool, { path: "dot.png" });
    expect(Array.isArray(run.llm)).toBe(true);
    const parts = run.llm as Exclude<typeof run.llm, string>;
    expect(parts[1]).toEqual({ type: "image", data: PNG_1X1.toString("base64"), mediaType: "image/png" });
    expect(run.display).toMatchObject({ kind: "image", mediaType: "image/png" });
    const blind = await s.run(readFileTool, { path: "dot.png" }, { modelAcceptsImages: false });
    expect(typeof blind.llm).toBe("string");
    expect(blind.llm).toContain("cannot view images");
  });

  it("extracts the text of a PDF", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "doc.pdf"), tinyPdf());
    const run = await s.run(readFileTool, { path: "doc.pdf" });
    expect(run.error).toBeUndefined();
    expect(run.llm).toContain("Hello PDF");
    expect(run.llm).toContain("Page 1");
  });

  it("says so instead of resending an unchanged file, and resends after a change", async () => {
    const s = await session();
    const file = path.join(s.root, "a.txt");
    await writeFile(file, "hello\n");
    const first = await s.run(readFileTool, { path: "a.txt" });
    expect(first.llm).toContain("hello");
    const second = await s.run(readFileTool, { path: "a.txt" });
    expect(second.llm).toContain("has not changed since you read");
    expect(second.llm).not.toContain("\thello");
    const otherWindow = await s.run(readFileTool, { path: "a.txt", offset: 1, limit: 1 });
    expect(otherWindow.llm).toContain("\thello");
    await writeFile(file, "hello again\n");
    const third = await s.run(readFileTool, { path: "a.txt" });
    expect(third.llm).toContain("hello again");
    s.ctx.reads.forgetViews();
    const afterCompaction = await s.run(readFileTool, { path: "a.txt" });
    expect(afterCompaction.llm).toContain("hello again");
  });

  it("refuses a folder and a missing file with codes", async () => {
    const s = await session();
    expect((await s.run(readFileTool, { path: "." })).error?.code).toBe("IS_DIRECTORY");
    expect((await s.run(readFileTool, { path: "missing.txt" })).error?.code).toBe("NOT_FOUND");
  });
});
