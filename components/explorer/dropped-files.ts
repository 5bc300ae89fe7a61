/** A file to upload and its path relative to the folder it goes to ("site/css/app.css"). */
export type UploadItem = { path: string; file: File };

// What was dropped from the desktop: files, and folders walked through the File and Directory
// Entries API (webkitGetAsEntry), so a dropped folder keeps its structure. The entries must be
// taken during the drop event itself; reading them may come later.

const fileOf = (entry: FileSystemFileEntry) => new Promise<File>((resolve, reject) => entry.file(resolve, reject));

async function childrenOf(entry: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = entry.createReader();
  const all: FileSystemEntry[] = [];
  // readEntries hands out a folder's entries in batches (100 in Chromium) until an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

async function walk(entry: FileSystemEntry, prefix: string, out: UploadItem[]): Promise<void> {
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) out.push({ path, file: await fileOf(entry as FileSystemFileEntry) });
  else if (entry.isDirectory)
    for (const child of await childrenOf(entry as FileSystemDirectoryEntry)) await walk(child, path, out);
}

/** Starts reading a drop's files and folders; call it synchronously in the drop handler. */
export function readDrop(data: DataTransfer): Promise<UploadItem[]> {
  const entries = [...data.items]
    .filter((item) => item.kind === "file")
    .map((item) => item.webkitGetAsEntry?.() ?? null);
  if (entries.length === 0 || entries.some((entry) => entry === null)) {
    return Promise.resolve([...data.files].map((file) => ({ path: file.name, file })));
  }
  return (async () => {
    const out: UploadItem[] = [];
    for (const entry of entries) await walk(entry!, "", out);
    return out;
  })();
}

/** Files from an <input type=file>: a folder picker gives each file's path inside the chosen folder. */
export function fromInput(files: FileList): UploadItem[] {
  return [...files].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
}

export const isFileDrag = (data: DataTransfer) => data.types.includes("Files");
