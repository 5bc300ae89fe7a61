import type { UploadItem } from "@/components/explorer/dropped-files";

export type OnExists = "refuse" | "replace" | "keep-both";

/** One multipart request to the server's upload route (XHR, for its upload progress); resolves with its answer in words. */
export function sendUpload(
  projectId: string,
  /** `tree`: a session's worktree (lib/trees.ts) the files go into; absent: the main tree. */
  target: { dir: string; onExists: OnExists; unzip?: boolean; tree?: string },
  items: UploadItem[],
  onProgress: (loaded: number, total: number) => void,
) {
  return new Promise<{ ok: boolean; message?: string }>((resolve) => {
    const body = new FormData();
    for (const item of items) {
      body.append("path", item.path);
      body.append("file", item.file, item.file.name);
    }
    const request = new XMLHttpRequest();
    const query = new URLSearchParams({
      dir: target.dir,
      onExists: target.onExists,
      ...(target.unzip ? { unzip: "1" } : {}),
      ...(target.tree ? { tree: target.tree } : {}),
    });
    request.open("POST", `/api/projects/${projectId}/upload?${query}`);
    request.upload.onprogress = (event) => onProgress(event.loaded, event.total);
    request.onload = () => {
      let reply: { error?: string; errors?: { message: string }[] } = {};
      try {
        reply = JSON.parse(request.responseText);
      } catch {
        reply = { error: `The server answered ${request.status}.` };
      }
      const problems = reply.error ? [reply.error] : (reply.errors ?? []).map((e) => e.message);
      resolve(problems.length ? { ok: false, message: problems.join(" ") } : { ok: true });
    };
    request.onerror = () =>
      resolve({ ok: false, message: "The upload was cut off: the connection to the server dropped." });
    request.send(body);
  });
}
