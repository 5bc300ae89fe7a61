import type { Readability } from "@mozilla/readability";
import type { parseHTML } from "linkedom";
import type TurndownService from "turndown";

// linkedom, Readability and Turndown load with the first page a web tool reads, not at start:
// together about 5 MB of an idle server's heap.
type Libraries = { parseHTML: typeof parseHTML; Readability: typeof Readability; Turndown: typeof TurndownService };
let libraries: Promise<Libraries> | undefined;
const load = () =>
  (libraries ??= Promise.all([import("linkedom"), import("@mozilla/readability"), import("turndown")]).then(
    ([linkedom, readability, turndown]) => ({
      parseHTML: linkedom.parseHTML,
      Readability: readability.Readability,
      Turndown: turndown.default,
    }),
  ));

/** An HTML document to query (linkedom's). */
export async function parseHtml(html: string) {
  return (await load()).parseHTML(html);
}

export interface Page {
  title: string;
  markdown: string;
}

function turndown(Turndown: typeof TurndownService): TurndownService {
  const service = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  service.remove(["script", "style", "noscript", "iframe", "form"]);
  return service;
}

/** The readable part of an HTML page (Readability), as Markdown (Turndown); the whole body when Readability finds no article. */
export async function htmlToMarkdown(html: string, url: string): Promise<Page> {
  const { parseHTML, Readability, Turndown } = await load();
  const { document } = parseHTML(html);
  const title = document.querySelector("title")?.textContent?.trim() ?? "";
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const body = article?.content ?? parseHTML(html).document.body?.innerHTML ?? html;
  const markdown = turndown(Turndown)
    .turndown(absolutize(parseHTML, body, url))
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title: article?.title?.trim() || title, markdown };
}

/** Links and images made absolute, so the model can follow them. */
function absolutize(parse: typeof parseHTML, html: string, base: string): string {
  const { document } = parse(`<!doctype html><html><body>${html}</body></html>`);
  for (const [selector, attr] of [
    ["a[href]", "href"],
    ["img[src]", "src"],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      try {
        element.setAttribute(attr, new URL(element.getAttribute(attr) ?? "", base).toString());
      } catch {
        // Not a URL: leave it as written.
      }
    }
  }
  return document.body.innerHTML;
}
