"use client";

import "@xterm/xterm/css/xterm.css";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import { useEffect, useRef, useState } from "react";
import { terminalSocketUrl } from "@/lib/terminal-protocol";
import { useTheme } from "@/components/ui/theme";
import { TerminalConnection, type TerminalStatus } from "./terminal-connection";

export interface TerminalViewProps {
  projectId: string;
  terminalId: string;
  /** Takes the keyboard when it opens: a terminal the person has just asked for. */
  autoFocus?: boolean;
}

const THEME = {
  background: "#181818",
  foreground: "#cccccc",
  cursor: "#cccccc",
  selectionBackground: "#264f78",
};

/** VS Code's Light+ terminal colours: xterm's default ANSI palette is made for dark backgrounds. */
const LIGHT_THEME = {
  background: "#ffffff",
  foreground: "#333333",
  cursor: "#333333",
  selectionBackground: "#add6ff",
  black: "#000000",
  red: "#cd3131",
  green: "#107c10",
  yellow: "#949800",
  blue: "#0451a5",
  magenta: "#bc05bc",
  cyan: "#0598bc",
  white: "#555555",
  brightBlack: "#666666",
  brightRed: "#cd3131",
  brightGreen: "#14ce14",
  brightYellow: "#b5ba00",
  brightBlue: "#0451a5",
  brightMagenta: "#bc05bc",
  brightCyan: "#0598bc",
  brightWhite: "#a5a5a5",
};

/** One server terminal rendered with xterm.js. Load it with next/dynamic and `ssr: false`. */
export function TerminalView({ projectId, terminalId, autoFocus = false }: TerminalViewProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const terminalRef = useRef<Terminal | null>(null);
  const { theme } = useTheme();
  const colors = theme === "light" ? LIGHT_THEME : THEME;
  const colorsRef = useRef(colors);
  colorsRef.current = colors;
  const autoFocusRef = useRef(autoFocus);
  const [status, setStatus] = useState<{ status: TerminalStatus; exitCode?: number | null }>({
    status: "connecting",
  });

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const terminal = new Terminal({
      fontFamily: '"Cascadia Code", Menlo, Consolas, "DejaVu Sans Mono", monospace',
      fontSize: 13,
      scrollback: 5000,
      cursorBlink: true,
      theme: colorsRef.current,
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(host);
    terminalRef.current = terminal;
    fit.fit();
    if (autoFocusRef.current) terminal.focus();
    const connection = new TerminalConnection({
      terminal,
      url: terminalSocketUrl(window.location, projectId, terminalId),
      onStatus: (next, exitCode) => setStatus({ status: next, exitCode }),
    });
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      // A hidden tab has no size; fitting it would shrink the shared PTY to nothing.
      frame = requestAnimationFrame(() => {
        if (host.clientWidth > 0 && host.clientHeight > 0) fit.fit();
      });
    });
    observer.observe(host);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      connection.dispose();
      terminalRef.current = null;
      terminal.dispose();
    };
  }, [projectId, terminalId]);

  useEffect(() => {
    if (terminalRef.current) terminalRef.current.options.theme = colors;
  }, [colors]);

  const banner = bannerText(status.status, status.exitCode);
  return (
    <div
      data-testid="terminal"
      data-status={status.status}
      style={{ position: "relative", width: "100%", height: "100%", background: colors.background }}
    >
      <div ref={hostRef} style={{ position: "absolute", inset: "4px 0 0 8px" }} />
      {banner && (
        <div
          role="status"
          data-testid="terminal-status"
          style={{
            position: "absolute",
            top: 6,
            right: 12,
            padding: "2px 8px",
            borderRadius: "var(--radius, 4px)",
            background: "var(--bg-elevated, #252526)",
            border: "1px solid var(--border, #3c3c3c)",
            color: "var(--fg-muted, #8b8b8b)",
            fontSize: 12,
            pointerEvents: "none",
          }}
        >
          {banner}
        </div>
      )}
    </div>
  );
}

function bannerText(status: TerminalStatus, exitCode: number | null | undefined): string | null {
  switch (status) {
    case "connecting":
      return "connecting…";
    case "reconnecting":
      return "reconnecting…";
    case "exited":
      return exitCode === null || exitCode === undefined ? "process exited" : `process exited with code ${exitCode}`;
    case "closed":
      return "terminal closed";
    case "connected":
      return null;
  }
}
