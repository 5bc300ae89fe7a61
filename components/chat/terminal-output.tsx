import { parseAnsi } from "@/components/chat/ansi";

/** A command and its output, rendered like a terminal. */
export function TerminalOutput({
  command,
  output,
  exitCode,
  running,
}: {
  command?: string;
  output: string;
  exitCode?: number | null;
  running?: boolean;
}) {
  return (
    <div className="term-output" data-testid="terminal-output">
      {command && (
        <div className="term-command">
          <span className="term-prompt">$</span> {command}
        </div>
      )}
      {output && (
        <pre>
          {parseAnsi(output).map((run, i) => (
            <span
              key={i}
              className={[run.fg && `ansi-${run.fg}`, run.bold && "ansi-bold"].filter(Boolean).join(" ") || undefined}
            >
              {run.text}
            </span>
          ))}
        </pre>
      )}
      {running ? (
        <div className="term-status">Running…</div>
      ) : exitCode !== undefined ? (
        <div className={exitCode === 0 ? "term-status" : "term-status failed"}>
          {exitCode === null ? "Stopped (no exit code)" : `Exit code ${exitCode}`}
        </div>
      ) : null}
    </div>
  );
}
