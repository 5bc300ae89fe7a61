import type http from "node:http";
import { pipeline } from "node:stream/promises";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { authorizeProject } from "@/server/api/access";
import { credentialOf, type Context, type Services } from "@/server/api/context";
import { downloadKind, streamFolderZip } from "@/server/services/project-download";
import { receiveUpload, UploadRefusedError } from "@/server/services/project-upload";
import { gitRepository } from "@/server/git/repository";
import { isWorkspaceError, openFileStream } from "@/server/workspace";
import { treeIdOf } from "@/lib/trees";
import { treeNameSchema } from "@/lib/tree-schemas";

// Plain HTTP routes for what does not fit JSON: uploads (multipart, streamed to disk) and downloads
// (a file as is, a folder as a zip streamed while it is built). They take the same caller and the
// same project rights as tRPC (server/api/access.ts): downloading is reading (viewers too, as
// fs.read); uploading is writing (owner, admin, member, as fs.write). Share links give nothing here.
//
//   GET  /api/projects/<id>/download?path=<folder or file>       ("" or absent: the whole project)
//   POST /api/projects/<id>/upload?dir=<folder>&onExists=refuse|replace|keep-both[&unzip=1]
// Both take `&tree=<session id>` for a session's worktree (lib/trees.ts); absent or "main": the main tree.

export const FILE_TRANSFER_PREFIX = "/api/projects/";

const ROUTE = /^\/api\/projects\/([0-9a-f-]{36})\/(download|upload)$/i;

const treeQuery = z.object({ tree: treeNameSchema.optional() });
const downloadQuery = z.object({ path: z.string().max(4096).default("") });
const uploadQuery = z.object({
  dir: z.string().max(4096).default(""),
  onExists: z.enum(["refuse", "replace", "keep-both"]).default("refuse"),
  unzip: z.enum(["0", "1"]).default("0"),
});

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
};

const STATUS: Record<string, number> = { UNAUTHORIZED: 401, FORBIDDEN: 403, NOT_FOUND: 404, BAD_REQUEST: 400 };
const WORKSPACE_STATUS: Record<string, number> = {
  NOT_FOUND: 404,
  EXISTS: 409,
  CONFLICT: 409,
  TOO_LARGE: 413,
  DISK_FULL: 507,
  IO_ERROR: 500,
};

/** "Content-Disposition: attachment" with a plain fallback and the UTF-8 name (RFC 6266). */
function attachment(name: string): string {
  const plain = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export async function handleFileTransfer(
  services: Services,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  caller: () => Promise<Context>,
) {
  const url = new URL(req.url ?? "/", "http://local");
  const route = ROUTE.exec(url.pathname);
  if (!route) return json(res, 404, { error: "Not found." });
  const [, projectId, action] = route;
  const method = action === "download" ? "GET" : "POST";
  if (req.method !== method && !(method === "GET" && req.method === "HEAD"))
    return json(res, 405, { error: `Use ${method}.` });
  const query = Object.fromEntries(url.searchParams);
  let stopFollowing = () => {};
  try {
    const need = action === "download" ? "read" : "write";
    const context = await caller();
    const found = await authorizeProject(context, projectId!, need);
    stopFollowing = cutWhenAccessEnds(services, context, found.project.id, need, () => {
      req.destroy();
      res.destroy();
    });
    // `tree`: a session's worktree of this project, for the same right as the main tree (lib/trees.ts).
    const tree = await services.trees.resolve(found.project.id, treeIdOf(treeQuery.parse(query).tree));
    if (!tree)
      return json(res, 404, { error: "This project has no such tree: its session's branch may have been discarded." });
    const workspace = await services.files.openTree(tree);
    if (action === "download") {
      const { path } = downloadQuery.parse(query);
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      if ((await downloadKind(workspace, path)) === "file") {
        const file = await openFileStream(workspace, path);
        res.writeHead(200, {
          "content-type": "application/octet-stream",
          "content-length": file.size,
          "content-disposition": attachment(file.path.split("/").pop()!),
          "cache-control": "no-store",
        });
        await pipeline(file.stream, res).catch(() => undefined);
        return;
      }
      const name = path === "" ? found.project.name : path.split("/").pop()!;
      res.writeHead(200, {
        "content-type": "application/zip",
        "content-disposition": attachment(`${name}.zip`),
        "cache-control": "no-store",
      });
      await streamFolderZip(workspace, path, res, abort.signal).catch((error: unknown) => {
        console.error("download:", error);
        res.destroy();
      });
      return;
    }
    const options = uploadQuery.parse(query);
    if (options.dir !== "") {
      const target = await workspace.stat(options.dir);
      if (target.type !== "directory") return json(res, 400, { error: `'${options.dir}' is not a folder.` });
    }
    const result = await receiveUpload(workspace, req, {
      dir: options.dir,
      onExists: options.onExists,
      unzip: options.unzip === "1",
      limits: services.config.upload,
      git: gitRepository(services.sandbox, workspace.root),
    });
    json(res, result.errors.length ? 409 : 200, result);
  } catch (error) {
    if (error instanceof TRPCError) return json(res, STATUS[error.code] ?? 500, { error: error.message });
    if (error instanceof z.ZodError) return json(res, 400, { error: z.prettifyError(error) });
    if (error instanceof UploadRefusedError) {
      // The rest of the body is not read: answer now and close the connection.
      res.setHeader("connection", "close");
      return json(res, error.status, { error: error.message });
    }
    if (isWorkspaceError(error)) return json(res, WORKSPACE_STATUS[error.code] ?? 400, { error: error.message });
    console.error(`${action}:`, error);
    json(res, 500, { error: "Something went wrong on the server." });
  } finally {
    stopFollowing();
  }
}

/**
 * A transfer under way is cut (both directions) when a change concerning its caller or project
 * (removed from the team, role lowered, signed out, its login or API token expired or revoked,
 * project deleted), on any instance, takes away the right it needs: a long download or upload
 * does not outlive the access it started with.
 */
function cutWhenAccessEnds(
  services: Services,
  context: Context,
  projectId: string,
  need: "read" | "write",
  cut: () => void,
): () => void {
  const holder = { ...credentialOf(context), projectId };
  return services.accessChanges.subscribe(holder, () => {
    const recheck = async () =>
      authorizeProject(
        { ...context, user: context.currentUser ? await context.currentUser() : context.user },
        projectId,
        need,
      );
    recheck().catch(cut);
  });
}
