"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { fromInput, isFileDrag, readDrop, type UploadItem } from "@/components/explorer/dropped-files";
import { sendUpload } from "@/components/explorer/upload-request";
import { useTRPC } from "@/components/trpc-provider";
import { errorMessage } from "@/components/ui/error-message";

// "New project → Upload a folder or zip": the project is created empty, then the folder's files (or
// the zip, which the server unpacks after checking every entry) are uploaded into it. When the
// upload fails the new project is deleted again, so no half-made project stays behind.

type Chosen = { label: string; items: UploadItem[]; zip: boolean; name: string };

/** A folder's files go to the project's root: the folder's own name becomes the project's name. */
function chosenFrom(items: UploadItem[]): Chosen | null {
  if (items.length === 0) return null;
  if (items.length === 1 && /\.zip$/i.test(items[0]!.path)) {
    const file = items[0]!;
    return {
      label: `${file.path} (${size(file.file.size)})`,
      items: [{ path: file.file.name, file: file.file }],
      zip: true,
      name: file.file.name.replace(/\.zip$/i, ""),
    };
  }
  const tops = new Set(items.map((i) => i.path.split("/")[0]));
  const folder = tops.size === 1 && items.every((i) => i.path.includes("/")) ? [...tops][0]! : null;
  const total = items.reduce((n, i) => n + i.file.size, 0);
  return {
    label: `${folder ?? "files"}: ${items.length} file${items.length === 1 ? "" : "s"}, ${size(total)}`,
    items: folder ? items.map((i) => ({ path: i.path.slice(folder.length + 1), file: i.file })) : items,
    zip: false,
    name: folder ?? "",
  };
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function UploadProjectForm({ teamId }: { teamId?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dropping, setDropping] = useState(false);
  const folderInput = useRef<HTMLInputElement>(null);
  const zipInput = useRef<HTMLInputElement>(null);
  const create = useMutation(trpc.project.create.mutationOptions());
  const remove = useMutation(trpc.project.delete.mutationOptions());

  const choose = (items: UploadItem[]) => {
    const next = chosenFrom(items);
    setChosen(next);
    setError(null);
    if (next && !name.trim()) setName(next.name);
  };

  async function submit() {
    if (!chosen) return;
    setError(null);
    let projectId: string | null = null;
    try {
      projectId = (await create.mutateAsync({ name, teamId })).id;
      setProgress(0);
      const result = await sendUpload(
        projectId,
        { dir: "", onExists: "refuse", unzip: chosen.zip },
        chosen.items,
        (loaded, total) => setProgress(total ? loaded / total : 0),
      );
      if (!result.ok) throw new Error(result.message);
      void queryClient.invalidateQueries(trpc.project.list.queryFilter());
      router.push(`/p/${projectId}`);
    } catch (failure) {
      setProgress(null);
      const removed = projectId
        ? await remove.mutateAsync({ projectId }).then(
            () => true,
            () => false,
          )
        : true;
      setError(
        `${errorMessage(failure)}${removed ? "" : " The project was created but is empty; an admin of the team can delete it."}`,
      );
      void queryClient.invalidateQueries(trpc.project.list.queryFilter());
    }
  }

  const busy = create.isPending || progress !== null;
  return (
    <form
      className="stack"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <div
        className={dropping ? "upload-zone dropping" : "upload-zone"}
        data-testid="new-project-drop"
        onDragOver={(event) => {
          if (!isFileDrag(event.dataTransfer)) return;
          event.preventDefault();
          setDropping(true);
        }}
        onDragLeave={() => setDropping(false)}
        onDrop={(event) => {
          setDropping(false);
          if (!isFileDrag(event.dataTransfer)) return;
          event.preventDefault();
          void readDrop(event.dataTransfer).then(choose);
        }}
      >
        <span>{chosen ? chosen.label : "Drop a folder or a .zip here, or"}</span>
        <div className="row">
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => folderInput.current?.click()}
            data-testid="new-project-pick-folder"
          >
            Choose a folder…
          </button>
          <button
            type="button"
            className="btn btn-sm"
            onClick={() => zipInput.current?.click()}
            data-testid="new-project-pick-zip"
          >
            Choose a zip…
          </button>
        </div>
        <input
          ref={folderInput}
          type="file"
          multiple
          hidden
          {...{ webkitdirectory: "" }}
          onChange={(e) => (
            e.currentTarget.files && choose(fromInput(e.currentTarget.files)), (e.currentTarget.value = "")
          )}
        />
        <input
          ref={zipInput}
          type="file"
          accept=".zip,application/zip"
          hidden
          onChange={(e) => (
            e.currentTarget.files && choose(fromInput(e.currentTarget.files)), (e.currentTarget.value = "")
          )}
          data-testid="new-project-zip-input"
        />
      </div>
      <div className="row">
        <input
          className="input"
          placeholder="New project name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-label="Project name"
          data-testid="new-project-upload-name"
          required
        />
        <button
          className="btn btn-primary"
          type="submit"
          disabled={busy || !chosen || !name.trim()}
          data-testid="create-project-upload"
        >
          {progress !== null
            ? `Uploading… ${Math.floor(progress * 100)}%`
            : create.isPending
              ? "Creating…"
              : "Create and upload"}
        </button>
      </div>
      {progress !== null && <progress className="upload-bar" max={1} value={progress} aria-label="Upload progress" />}
      <small className="hint">
        A zip is unpacked into the project (its single top folder, if any, is left out). Links inside zips are refused.
      </small>
      {error && (
        <div className="error-text" data-testid="new-project-error">
          {error}
        </div>
      )}
    </form>
  );
}
