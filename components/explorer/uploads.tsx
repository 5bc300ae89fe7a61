"use client";

import { useQueryClient } from "@tanstack/react-query";
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from "react";
import { fromInput, type UploadItem } from "@/components/explorer/dropped-files";
import { sendUpload, type OnExists } from "@/components/explorer/upload-request";
import { folderQuery } from "@/components/explorer/explorer-context";
import { useTRPC } from "@/components/trpc-provider";
import { useTreeInput } from "@/components/ui/tree-context";

// Uploads into the explorer: files and folders dropped from the desktop or picked with "Upload…".
// Each upload is one multipart request to the server's upload route, with its progress shown
// under the tree; a name that is taken asks first (replace, or keep both as "name (1)").

type Upload = {
  id: number;
  label: string;
  folder: string;
  loaded: number;
  total: number;
  state: "uploading" | "done" | "error";
  message?: string;
};
type Asking = { folder: string; items: UploadItem[]; taken: string[] };

type UploadsApi = {
  upload(items: UploadItem[], folder: string): void;
  pick(folder: string, kind: "files" | "folder"): void;
  uploads: Upload[];
  dismiss(id: number): void;
};

const UploadsContext = createContext<UploadsApi | null>(null);

export function useUploads(): UploadsApi {
  const api = useContext(UploadsContext);
  if (!api) throw new Error("useUploads must be used inside <UploadsProvider>");
  return api;
}

export function UploadsProvider({
  projectId,
  onUploaded,
  children,
}: {
  projectId: string;
  onUploaded(folder: string): void;
  children: ReactNode;
}) {
  const trpc = useTRPC();
  const tree = useTreeInput();
  const queryClient = useQueryClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [asking, setAsking] = useState<Asking | null>(null);
  const nextId = useRef(0);
  const pickerFolder = useRef("");
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);

  const start = useCallback(
    async (items: UploadItem[], folder: string, onExists: OnExists) => {
      const id = ++nextId.current;
      const total = items.reduce((n, i) => n + i.file.size, 0);
      const tops = [...new Set(items.map((i) => i.path.split("/")[0]!))];
      const label = tops.length === 1 ? tops[0]! : `${items.length} files`;
      const update = (patch: Partial<Upload>) =>
        setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...patch } : u)));
      setUploads((list) => [...list, { id, label, folder, loaded: 0, total, state: "uploading" }]);
      const result = await sendUpload(projectId, { dir: folder, onExists, tree: tree.tree }, items, (loaded, all) =>
        update({ loaded, total: all }),
      );
      update(result.ok ? { state: "done" } : { state: "error", message: result.message });
      onUploaded(folder);
      if (result.ok) setTimeout(() => setUploads((list) => list.filter((u) => u.id !== id)), 4000);
    },
    [projectId, onUploaded],
  );

  const upload = useCallback(
    async (items: UploadItem[], folder: string) => {
      if (items.length === 0) return;
      const entries = await queryClient
        .fetchQuery(folderQuery(trpc, projectId, folder, true, tree))
        .then((listing) => listing.entries)
        .catch(() => []);
      const names = new Set(entries.map((e) => e.name));
      const taken = [...new Set(items.map((i) => i.path.split("/")[0]!))].filter((top) => names.has(top));
      if (taken.length) setAsking({ folder, items, taken });
      else void start(items, folder, "refuse");
    },
    [queryClient, trpc, projectId, start],
  );

  const api: UploadsApi = {
    uploads,
    dismiss: (id) => setUploads((list) => list.filter((u) => u.id !== id)),
    upload: (items, folder) => void upload(items, folder),
    pick(folder, kind) {
      pickerFolder.current = folder;
      (kind === "files" ? filesInput : folderInput).current?.click();
    },
  };

  const picked = (input: HTMLInputElement) => {
    if (input.files?.length) void upload(fromInput(input.files), pickerFolder.current);
    input.value = "";
  };

  return (
    <UploadsContext.Provider value={api}>
      {children}
      <input
        ref={filesInput}
        type="file"
        multiple
        hidden
        onChange={(e) => picked(e.currentTarget)}
        data-testid="upload-files-input"
      />
      <input
        ref={folderInput}
        type="file"
        multiple
        hidden
        {...{ webkitdirectory: "" }}
        onChange={(e) => picked(e.currentTarget)}
        data-testid="upload-folder-input"
      />
      {asking && (
        <div className="dialog-backdrop">
          <div
            className="dialog"
            role="dialog"
            aria-modal="true"
            aria-label="Name already taken"
            data-testid="upload-conflict"
          >
            <h2>
              {asking.taken.length === 1
                ? `'${asking.taken[0]}' already exists`
                : `${asking.taken.length} names already exist`}
            </h2>
            <p className="muted">
              {asking.taken.length === 1
                ? `There is already an entry named '${asking.taken[0]}'`
                : `These names are taken: ${asking.taken.join(", ")}`}{" "}
              in {asking.folder || "the project root"}. Replace overwrites files with the same path (folders are
              merged); Keep both uploads under a new name such as &lsquo;{numbered(asking.taken[0]!)}&rsquo;.
            </p>
            <div className="dialog-actions">
              <button type="button" className="btn" onClick={() => setAsking(null)}>
                Cancel
              </button>
              <button
                type="button"
                className="btn"
                onClick={() => (setAsking(null), void start(asking.items, asking.folder, "keep-both"))}
                data-testid="upload-keep-both"
              >
                Keep both
              </button>
              <button
                type="button"
                className="btn btn-danger"
                onClick={() => (setAsking(null), void start(asking.items, asking.folder, "replace"))}
                data-testid="upload-replace"
              >
                Replace
              </button>
            </div>
          </div>
        </div>
      )}
    </UploadsContext.Provider>
  );
}

/** Each running or finished upload with its progress, under the tree. */
export function UploadProgress() {
  const { uploads, dismiss } = useUploads();
  return (
    <>
      {uploads.length > 0 && (
        <ul className="uploads" aria-label="Uploads" data-testid="uploads">
          {uploads.map((u) => (
            <li key={u.id} className={`upload upload-${u.state}`} data-testid="upload" data-state={u.state}>
              <div className="upload-line">
                <span className="upload-name">{u.label}</span>
                <span className="spacer" />
                <span className="upload-figure">
                  {u.state === "uploading"
                    ? `${u.total ? Math.floor((u.loaded / u.total) * 100) : 0}%`
                    : u.state === "done"
                      ? "Uploaded"
                      : "Failed"}
                </span>
                {u.state !== "uploading" && (
                  <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => dismiss(u.id)}>
                    ×
                  </button>
                )}
              </div>
              <progress
                max={u.total || 1}
                value={u.state === "done" ? u.total || 1 : u.loaded}
                aria-label={`Uploading ${u.label}`}
              />
              {u.message && <div className="error-text upload-error">{u.message}</div>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function numbered(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? `${name} (1)` : `${name.slice(0, dot)} (1)${name.slice(dot)}`;
}
