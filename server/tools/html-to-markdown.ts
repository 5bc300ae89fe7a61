import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

export interface Page {
  title: string;
  markdown: string;
}

function turndown(): TurndownService {
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  service.remove(["script", "style", "noscript", "iframe", "form"]);
  return service;
}

/** The readable part of an HTML page (Readability), as Markdown (Turndown); the whole body when Readability finds no article. */
export function htmlToMarkdown(html: string, url: string): Page {
  const { document } = parseHTML(html);
  const title = document.querySelector("title")?.textContent?.trim() ?? "";
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const body = article?.content ?? parseHTML(html).document.body?.innerHTML ?? html;
  const markdown = turndown()
    .turndown(absolutize(body, url))
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title: article?.title?.trim() || title, markdown };
}

/** Links and images made absolute, so the model can follow them. */
function absolutize(html: string, base: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
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
