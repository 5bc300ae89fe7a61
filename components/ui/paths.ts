/** Folder that holds `path` ("" for the workspace root). */
export const parentOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");

export const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

export const joinPath = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);

/** True when `path` is `folder` itself or anything inside it. */
export const isWithin = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

/** A problem with a name typed for a new or renamed entry, or null when it is fine. */
export function nameProblem(name: string): string | null {
  if (!name.trim()) return "Give it a name.";
  if (name.includes("/") || name.includes("\\")) return "A name cannot contain / or \\.";
  if (name === "." || name === "..") return "That name is reserved.";
  return null;
}
