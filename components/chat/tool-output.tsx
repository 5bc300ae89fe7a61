"use client";

import { DiffView } from "@/components/chat/diff-view";
import { CodeBlock } from "@/components/chat/code-block";
import { Markdown } from "@/components/chat/markdown";
import { TerminalOutput } from "@/components/chat/terminal-output";
import { parseDisplay } from "@/lib/tool-display";

type Result = { ok: boolean; llm: string; display?: unknown; durationMs: number; errorCode?: string };

/** What a finished call showed: the tool's display when it has a known shape, else its text. */
export function ToolOutput({ result }: { result: Result }) {
  const display = parseDisplay(result.display);
  if (!display) return <pre className="tool-text">{result.llm}</pre>;
  switch (display.kind) {
    case "text":
      return <pre className="tool-text">{display.text}</pre>;
    case "markdown":
      return <Markdown text={display.text} />;
    case "diff":
      return (
        <>
          <DiffView files={display.files} />
          {display.problems?.length ? (
            <ul className="tool-problems" data-testid="tool-new-problems" aria-label="New errors">
              {display.problems.map((p) => (
                <li key={`${p.path}:${p.line}:${p.column}:${p.message}`}>
                  <span className="tool-problem-where">
                    {p.path}:{p.line}:{p.column}
                  </span>{" "}
                  {p.message.split("\n")[0]}
                  {p.code !== undefined ? <span className="tool-problem-code"> ({p.code})</span> : null}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      );
    case "terminal":
      return (
        <TerminalOutput
          command={display.command}
          output={display.output}
          exitCode={display.background ? undefined : display.exitCode}
        />
      );
    case "table":
      return (
        <div className="tool-table">
          <table className="table">
            <thead>
              <tr>
                {display.columns.map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {display.rows.map((row, i) => (
                <tr key={i}>
                  {row.map((cell, j) => (
                    <td key={j}>{cell}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
          {display.footer && <div className="hint">{display.footer}</div>}
        </div>
      );
    case "image":
      return (
        <p className="tool-text">
          Image {display.path} ({display.mediaType}, {display.size.toLocaleString()} bytes)
        </p>
      );
    case "json":
      return (
        <div className="tool-json" data-testid="tool-json">
          <CodeBlock code={JSON.stringify(display.value, null, 2)} language="json" />
        </div>
      );
    case "error":
      return (
        <div className="tool-error" data-testid="tool-error">
          <code>{display.code}</code> {display.message}
        </div>
      );
  }
}
