import path from "node:path";
import { z } from "zod";
import { isWorkspaceError, type Workspace } from "@/server/workspace";
import { TarRefusedError, importTar, listTar } from "@/server/workspace/tar-import";
import { type ArchiveEntry, ZipRefusedError, importZip, listZip } from "@/server/workspace/zip-import";
import { defineTool } from "./define-tool";
import { ToolFailure, ok } from "./result";
import { formatSize } from "./text-window";

// archive: lists or extracts a zip or tar (.tar, .tar.gz, .tgz) that is in the workspace, into the
// workspace. Extracting goes through the upload path's unpackers (server/workspace/zip-import.ts,
// tar-import.ts) with their guards: every entry checked before anything is written (no absolute
// or climbing names, no links, only regular files and folders, entry count and size caps, zip
// sizes enforced while inflating, gzip inflated no further than the cap), each file written
// through the Workspace. Listing is a read; extracting is a change, asked for as edits are.

const ARCHIVE_MAX_BYTES = 50 * 1024 * 1024;
export const ARCHIVE_LIMITS = { maxEntries: 10_000, maxBytes: 100 * 1024 * 1024 };
const LIST_SHOWN = 500;

const DESCRIPTION = `Lists or extracts a zip or tar archive (.zip, .tar, .tar.gz, .tgz) in the workspace.
- action "list": every entry with its type and size (nothing is written).
- action "extract": unpacks into the folder \`to\` (default: a folder named after the archive, beside it). Existing files are not replaced unless overwrite is true.
Archives with absolute or climbing paths, links, devices or FIFOs, more than ${ARCHIVE_LIMITS.maxEntries} entries or more than ${formatSize(ARCHIVE_LIMITS.maxBytes)} unpacked are refused whole: nothing is written. The archive itself may be at most ${formatSize(ARCHIVE_MAX_BYTES)}.`;

const input = z.object({
  action: z.enum(["list", "extract"]),
  path: z.string().min(1).describe("The archive, relative to the workspace root."),
  to: z.string().min(1).optional().describe("Folder to extract into, relative to the workspace root."),
  overwrite: z.boolean().optional().describe("Replace files that already exist (default false: refuse)."),
});
type ArchiveInput = z.infer<typeof input>;

type Format = "zip" | "tar";

function formatOf(name: string, bytes: Buffer): Format {
  if (/\.zip$/i.test(name) || bytes.subarray(0, 4).equals(Buffer.from("PK\x03\x04", "latin1"))) return "zip";
  if (/\.(tar|tar\.gz|tgz)$/i.test(name) || (bytes[0] === 0x1f && bytes[1] === 0x8b)) return "tar";
  if (bytes.subarray(257, 262).toString("latin1") === "ustar") return "tar";
  throw new ToolFailure("INVALID_INPUT", `'${name}' is not a zip or tar archive (by its name or its first bytes).`);
}

/** The default destination: "dist/site.tar.gz" → "dist/site". */
function defaultFolder(archive: string): string {
  const dir = path.posix.dirname(archive);
  const base = path.posix.basename(archive).replace(/\.(zip|tar|tar\.gz|tgz)$/i, "") || "extracted";
  return dir === "." ? base : `${dir}/${base}`;
}

const isExtract = (i: ArchiveInput) => i.action === "extract";

export const archiveTool = defineTool({
  name: "archive",
  onDemand: "always",
  kind: "read",
  description: DESCRIPTION,
  input,
  describe: (i) => (isExtract(i) ? `Extract ${i.path}${i.to ? ` into ${i.to}` : ""}` : `List ${i.path}`),
  mutates: isExtract,
  // Extracting writes files: it asks as edits do, unless a rule or yolo mode allows it.
  needsApproval: isExtract,
  async execute(i, ctx) {
    const resolved = await ctx.workspace.resolve(i.path);
    const label = resolved.requested;
    const bytes = await ctx.workspace.readBytes(i.path, ARCHIVE_MAX_BYTES).catch((error: unknown) => {
      if (isWorkspaceError(error) && error.code === "TOO_LARGE")
        throw new ToolFailure(
          "TOO_LARGE",
          `'${label}' is over ${formatSize(ARCHIVE_MAX_BYTES)}; unpack it with the shell.`,
        );
      throw error;
    });
    const format = formatOf(label, bytes);
    try {
      if (!isExtract(i)) return listed(label, await list(format, bytes));
      const dir = (await ctx.workspace.resolve(i.to ?? defaultFolder(label))).requested;
      if (!i.overwrite) await refuseTaken(ctx.workspace, dir, await list(format, bytes));
      const options = {
        dir,
        onExists: i.overwrite ? ("replace" as const) : ("refuse" as const),
        limits: ARCHIVE_LIMITS,
      };
      const { files } =
        format === "zip"
          ? await importZip(ctx.workspace, bytes, options)
          : await importTar(ctx.workspace, bytes, options);
      const total = files.reduce((sum, f) => sum + f.size, 0);
      const shown = files.slice(0, 50).map((f) => f.path);
      const text = `Extracted ${files.length} file(s), ${formatSize(total)}, from '${label}' into '${dir || "."}':\n${shown.join("\n")}${files.length > shown.length ? `\n… and ${files.length - shown.length} more` : ""}`;
      return ok(text, { kind: "text", text }, { path: label, to: dir, files: files.length, bytes: total });
    } catch (error) {
      if (error instanceof ZipRefusedError || error instanceof TarRefusedError)
        throw new ToolFailure("INVALID_INPUT", `'${label}' was refused: ${error.message}`);
      throw error;
    }
  },
});

/** Without overwrite, a file that is already there stops the extraction before anything is written. */
async function refuseTaken(workspace: Workspace, dir: string, entries: ArchiveEntry[]): Promise<void> {
  for (const entry of entries) {
    if (entry.type !== "file") continue;
    const name = entry.name.replace(/^(\.\/)+/, "");
    const target = dir ? `${dir}/${name}` : name;
    const taken = await workspace.stat(target).then(
      () => true,
      () => false,
    );
    if (taken)
      throw new ToolFailure(
        "EXISTS",
        `'${target}' already exists, so nothing was extracted. Extract into another folder (to), or pass overwrite: true.`,
      );
  }
}

function list(format: Format, bytes: Buffer): Promise<ArchiveEntry[]> {
  return format === "zip" ? listZip(bytes, ARCHIVE_LIMITS.maxEntries) : listTar(bytes, ARCHIVE_LIMITS);
}

function listed(label: string, entries: ArchiveEntry[]) {
  const files = entries.filter((e) => e.type === "file");
  const total = files.reduce((sum, e) => sum + e.size, 0);
  const head = `'${label}': ${entries.length} entries, ${files.length} file(s), ${formatSize(total)} unpacked.`;
  const rows = entries.slice(0, LIST_SHOWN).map((e) => [e.name, e.type, e.type === "file" ? formatSize(e.size) : "-"]);
  const more = entries.length > LIST_SHOWN ? `\n… and ${entries.length - LIST_SHOWN} more` : "";
  const text = `${head}\n${rows.map((r) => `${r[1]!.padEnd(9)} ${r[2]!.padStart(9)}  ${r[0]}`).join("\n")}${more}`;
  return ok(
    text,
    { kind: "table", columns: ["Name", "Type", "Size"], rows, ...(more ? { footer: more.trim() } : {}) },
    { path: label, entries: entries.length, files: files.length, bytes: total },
  );
}
