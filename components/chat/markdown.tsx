"use client";

import { memo, isValidElement, type ReactElement, type ReactNode } from "react";
import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";
import rehypeSanitize from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "@/components/chat/code-block";

// Model output as markdown, never as HTML: raw HTML in the text is shown as literal text (so people
// see what the model wrote, and nothing of it is parsed), the tree is sanitized (rehype-sanitize's GitHub schema: no scripts, no event
// handlers, no style), URLs lose dangerous schemes (javascript:, data:, vbscript:), and images load
// only from this app's own origin, so model output can neither run code nor make the browser call
// another host.

/** An image source on this app's origin, or null. */
export function sameOriginUrl(src: string | undefined | null): string | null {
  if (!src || typeof window === "undefined") return null;
  try {
    const url = new URL(src, window.location.href);
    return url.origin === window.location.origin ? url.href : null;
  } catch {
    return null;
  }
}

type HastNode = { type: string; value?: string; children?: HastNode[] };

/** Turns raw HTML nodes into text nodes before sanitizing (which would silently drop them). */
function rawHtmlAsText() {
  const walk = (node: HastNode) => {
    if (node.type === "raw") node.type = "text";
    node.children?.forEach(walk);
  };
  return (tree: HastNode) => walk(tree);
}

function urlTransform(url: string, key: string, node: { tagName?: string }): string {
  const safe = defaultUrlTransform(url);
  if (node.tagName === "img" && key === "src") return sameOriginUrl(safe) ?? "";
  return safe;
}

function textOf(node: ReactNode): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (isValidElement(node)) return textOf((node.props as { children?: ReactNode }).children);
  return "";
}

const components: Components = {
  pre({ children }) {
    const code = (Array.isArray(children) ? children[0] : children) as
      | ReactElement<{ className?: string; children?: ReactNode }>
      | undefined;
    const language = /language-([\w+#.-]+)/.exec(code?.props?.className ?? "")?.[1] ?? null;
    return <CodeBlock code={textOf(code?.props?.children).replace(/\n$/, "")} language={language} />;
  },
  a({ href, children }) {
    if (!href) return <span>{children}</span>;
    const external = !href.startsWith("#") && sameOriginUrl(href) === null;
    return (
      <a href={href} {...(external ? { target: "_blank", rel: "noopener noreferrer nofollow" } : {})} title={href}>
        {children}
      </a>
    );
  },
  img({ src, alt }) {
    const safe = typeof src === "string" ? sameOriginUrl(src) : null;
    if (!safe) {
      return (
        <span className="blocked-image" data-testid="blocked-image" title="Images are shown only from this server">
          [image{alt ? `: ${alt}` : ""} — not loaded from another site]
        </span>
      );
    }
    return <img src={safe} alt={alt ?? ""} loading="lazy" />;
  },
};

/** Renders markdown text; memoized by its text, so streaming re-renders only the message that grew. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={[rawHtmlAsText, rehypeSanitize]}
        components={components}
        urlTransform={urlTransform}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});
