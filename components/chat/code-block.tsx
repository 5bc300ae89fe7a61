"use client";

import { useEffect, useState } from "react";
import { tokenClass, tokenizeCode, type CodeToken } from "@/components/chat/code-tokens";

/** How long a block must stay unchanged (streaming adds to it) before it is highlighted again. */
const SETTLE_MS = 150;

/**
 * A fenced code block: highlighted once its language's tokenizer has loaded, with a copy button.
 * While the model streams into it, the part already highlighted stays highlighted and the new tail
 * shows as plain text until the block settles, instead of re-tokenizing the whole block per frame.
 */
export function CodeBlock({ code, language }: { code: string; language: string | null }) {
  const [highlighted, setHighlighted] = useState<{ code: string; language: string; lines: CodeToken[][] } | null>(null);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!language) return;
    let live = true;
    const timer = setTimeout(
      () => {
        tokenizeCode(code, language).then(
          (lines) => live && lines && setHighlighted({ code, language, lines }),
          () => {},
        );
      },
      highlighted ? SETTLE_MS : 0,
    );
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `highlighted` only picks the delay: a new highlight must not start another.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [code, language]);

  const usable =
    highlighted && highlighted.language === language && code.startsWith(highlighted.code) ? highlighted : null;
  const tail = usable ? code.slice(usable.code.length) : code;
  const copy = async () => {
    await navigator.clipboard.writeText(code).catch(() => {});
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };

  return (
    <div className="code-block" data-testid="code-block">
      <div className="code-block-bar">
        <span>{language ?? "text"}</span>
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={copy}
          data-testid="copy-code"
          aria-label="Copy code"
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre>
        <code>
          {usable?.lines.map((line, i) => (
            <span key={i}>
              {line.map((token, t) => (
                <span key={t} className={tokenClass(token.type)}>
                  {token.text}
                </span>
              ))}
              {i < usable.lines.length - 1 && "\n"}
            </span>
          ))}
          {tail}
        </code>
      </pre>
    </div>
  );
}
