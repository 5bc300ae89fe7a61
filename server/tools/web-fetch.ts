import path from "node:path";
import { webFetchCall } from "@/lib/tool-call-shapes";
import { atomicWriteBeneath } from "@/server/workspace/atomic-write";
import { mkdirBeneath } from "@/server/workspace/beneath-entries";
import { errnoCode, fromFsError } from "@/server/workspace/errors";
import { defineTool, type ToolContext } from "./define-tool";
import { fetchLimits, guardedFetch, parseUrl, type Fetched } from "./guarded-fetch";
import { htmlToMarkdown } from "./html-to-markdown";
import { projectNetwork } from "./project-network";
import { ToolFailure, ok } from "./result";
import { formatSize } from "./text-window";

const DESCRIPTION = `Fetches a URL (http or https) from the public internet.
- HTML pages come back as readable Markdown (the main content, links kept); JSON and text as they are; PDFs as their text.
- raw: return the body as text without conversion (HTML source, for example).
- prompt: a question or instruction about the page; when a model is available it answers from the page instead of returning all of it.
- download: save the body to output_path in the workspace (default downloads/<file name>) instead of returning it.
- Limits: 30 s, 5 MB, 5 redirects. Local, private and internal addresses are refused.
- It runs on Tandem's server under the project's network policy: with "off" nothing is fetched; with an allow-list only its hosts (a refused host is named, and a person can allow it).`;

const DISPLAY_CHARS = 100_000;
/** What the small model gets of a page for `prompt`. */
const SUMMARIZE_CHARS = 200_000;

export const webFetchTool = defineTool({
  ...webFetchCall,
  onDemand: "small-window",
  description: DESCRIPTION,
  mutates: (input) => input.download === true,
  async execute(input, ctx) {
    parseUrl(input.url);
    if (input.output_path !== undefined && !input.download) {
      throw new ToolFailure("INVALID_INPUT", "output_path is only used with download: true.");
    }
    const target = input.download ? await downloadTarget(ctx, input.url, input.output_path) : null;
    ctx.emit({ type: "status", text: `Fetching ${input.url}` });
    const limits = fetchLimits(ctx.fetchPolicy);
    const page = await guardedFetch(
      input.url,
      ctx.fetchPolicy,
      input.timeout_ms ? { ...limits, timeoutMs: input.timeout_ms } : limits,
      ctx.signal,
      await projectNetwork(ctx),
    );
    const where = page.redirects.length ? ` (redirected to ${page.url})` : "";
    if (target) return saveDownload(ctx, page, target, where);
    if (page.status >= 400) {
      throw new ToolFailure(
        "FETCH_FAILED",
        `${page.url} answered HTTP ${page.status}${where}. ${textBody(page).slice(0, 500)}`,
      );
    }
    const { text, title } = await contentOf(page, input.raw === true);
    const heading = `${title ? `# ${title}\n` : ""}URL: ${page.url}${where}\n\n`;
    if (input.prompt) {
      if (ctx.summarize) {
        const cut =
          text.length > SUMMARIZE_CHARS
            ? `${text.slice(0, SUMMARIZE_CHARS)}\n[Page cut at ${SUMMARIZE_CHARS} characters.]`
            : text;
        const answer = await ctx.summarize(input.prompt, `${heading}${cut}`, ctx.signal);
        return ok(
          `From ${page.url}${where}:\n\n${answer}`,
          { kind: "markdown", text: answer },
          { url: page.url, status: page.status },
        );
      }
      return ok(
        `(No model is configured to apply the prompt, so here is the content.)\n${heading}${text}`,
        { kind: "markdown", text: text.slice(0, DISPLAY_CHARS) },
        { url: page.url, status: page.status },
      );
    }
    return ok(
      `${heading}${text}`,
      { kind: "markdown", text: text.slice(0, DISPLAY_CHARS) },
      { url: page.url, status: page.status, contentType: page.contentType },
    );
  },
});

function mediaType(page: Fetched): string {
  return page.contentType.split(";")[0]!.trim().toLowerCase();
}

function textBody(page: Fetched): string {
  const charset = /charset=([^;]+)/i.exec(page.contentType)?.[1]?.trim().toLowerCase();
  try {
    return new TextDecoder(charset ?? "utf-8").decode(page.body);
  } catch {
    return new TextDecoder("utf-8").decode(page.body);
  }
}

function looksBinary(page: Fetched): boolean {
  return page.body.subarray(0, 8192).includes(0);
}

async function contentOf(page: Fetched, raw: boolean): Promise<{ text: string; title: string }> {
  const type = mediaType(page);
  if (type === "application/pdf") {
    const { extractText, getDocumentProxy } = await import("unpdf");
    const pdf = await getDocumentProxy(new Uint8Array(page.body));
    const { text } = await extractText(pdf, { mergePages: true });
    return { text, title: "" };
  }
  const textual = type.startsWith("text/") || /json|xml|javascript|yaml|csv/.test(type);
  if (!textual || looksBinary(page)) {
    throw new ToolFailure(
      "BINARY_FILE",
      `${page.url} is ${type} (${formatSize(page.body.length)}), not text. Use download: true to save it in the workspace.`,
    );
  }
  const body = textBody(page);
  if (!raw && (type === "text/html" || type === "application/xhtml+xml")) {
    const converted = await htmlToMarkdown(body, page.url);
    return { text: converted.markdown, title: converted.title };
  }
  return { text: body, title: "" };
}

async function downloadTarget(
  ctx: ToolContext,
  url: string,
  outputPath: string | undefined,
): Promise<{ requested: string }> {
  const fallback = `downloads/${decodeURIComponent(path.posix.basename(new URL(url).pathname)) || "index.html"}`;
  const resolved = await ctx.workspace.resolve(outputPath ?? fallback);
  if (resolved.requested === "")
    throw new ToolFailure("IS_DIRECTORY", "output_path must name a file, not the workspace root.");
  return { requested: resolved.requested };
}

async function saveDownload(ctx: ToolContext, page: Fetched, target: { requested: string }, where: string) {
  if (page.status >= 400)
    throw new ToolFailure("FETCH_FAILED", `${page.url} answered HTTP ${page.status}${where}; nothing was saved.`);
  await ctx.workspace.exclusive(async () => {
    // Beneath the root: output_path is the model's, and its folders are the workspace's.
    const folder = path.posix.dirname(target.requested);
    await mkdirBeneath(ctx.workspace.root, folder === "." ? "" : folder).catch((error: unknown) =>
      Promise.reject(fromFsError(error, folder)),
    );
    await atomicWriteBeneath(ctx.workspace.root, target.requested, page.body, { exclusive: true }).catch(
      (error: unknown) => {
        if (errnoCode(error) === "EEXIST") {
          throw new ToolFailure(
            "EXISTS",
            `'${target.requested}' already exists. Choose another output_path, or delete the file first.`,
          );
        }
        throw fromFsError(error, target.requested);
      },
    );
  });
  const type = mediaType(page);
  return ok(
    `Saved ${page.url}${where} to '${target.requested}' (${formatSize(page.body.length)}, ${type}).`,
    { kind: "text", text: `Downloaded ${target.requested} (${formatSize(page.body.length)})` },
    { path: target.requested, size: page.body.length, mediaType: type, url: page.url },
  );
}
