"use client";

import { useEffect, useState } from "react";
import { tokenClass, tokenizeCode, type CodeToken } from "@/components/chat/code-tokens";

/** A fenced code block: highlighted once its language's tokenizer has loaded, with a copy button. */
export function CodeBlock({ code, language }: { code: string; language: string | null }) {
  const [lines, setLines] = useState<CodeToken[][] | null>(null);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    let live = true;
    setLines(null);
    if (language) tokenizeCode(code, language).then((tokens) => live && setLines(tokens), () => {});
    return () => {
      live = false;
    };
  }, [code, language]);

  const copy = async () => {
    await navigator.clipboard.writeText(code).catch(() => {});
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };

  return (
    <div className="code-block" data-testid="code-block">
      <div className="code-block-bar">
        <span>{language ?? "text"}</span>
        <button type="button" className="btn btn-ghost btn-sm" onClick={copy} data-testid="copy-code" aria-label="Copy code">
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre>
        <code>
          {lines
            ? lines.map((line, i) => (
                <span key={i}>
                  {line.map((token, t) => (
                    <span key={t} className={tokenClass(token.type)}>
                      {token.text}
                    </span>
                  ))}
                  {i < lines.length - 1 && "\n"}
                </span>
              ))
            : code}
        </code>
      </pre>
    </div>
  );
}
