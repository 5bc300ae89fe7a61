"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc-provider";
import { previewMessageSchema } from "@/lib/preview-frame";
import { useOpenPreviewTab } from "./open-preview-tab";

// The Preview panel beside the editor: a port's preview in a frame, on the preview's own origin
// (server/preview), with an address bar, Back, Forward, Reload, widths, a new tab, and the page's
// console errors. The frame is another origin, so what the IDE knows of it comes from the
// script the proxy adds to framed pages (frame-script.ts), as messages taken from exactly the
// preview's origin and that frame, parsed, and shown as text.

const WIDTHS = [
  { id: "phone", label: "Phone", width: "390px" },
  { id: "tablet", label: "Tablet", width: "820px" },
  { id: "desktop", label: "Desktop", width: "100%" },
] as const;
type Width = (typeof WIDTHS)[number]["id"];
/** The errors kept: the last ones of a noisy page. */
const MAX_ERRORS = 100;

export function PreviewPanel({ projectId, port, onClose }: { projectId: string; port: number; onClose: () => void }) {
  const trpc = useTRPC();
  const enter = useMutation(trpc.ports.preview.mutationOptions());
  const tab = useOpenPreviewTab(projectId);
  const frame = useRef<HTMLIFrameElement>(null);
  const [target, setTarget] = useState<{ src: string; origin: string; load: number } | null>(null);
  const [address, setAddress] = useState("/");
  // Back and Forward walk the paths the page reported, each loaded afresh (not the frame's history,
  // which is joint with the IDE's tab: going back past the frame's first page would leave the IDE).
  const [visited, setVisited] = useState<{ paths: string[]; at: number }>({ paths: ["/"], at: 0 });
  const where = visited.paths[visited.at]!;
  const [width, setWidth] = useState<Width>("desktop");
  const [errors, setErrors] = useState<Array<{ id: number; text: string }>>([]);
  const [showErrors, setShowErrors] = useState(false);
  const nextId = useRef(0);
  const { mutate } = enter;

  /** Loads `path` through a fresh one-time link, so an expired preview session never shows. */
  const go = useCallback(
    (path: string) =>
      mutate(
        { projectId, port, path },
        { onSuccess: ({ url, origin }) => setTarget((t) => ({ src: url, origin, load: (t?.load ?? 0) + 1 })) },
      ),
    [mutate, projectId, port],
  );

  useEffect(() => {
    setAddress("/");
    setVisited({ paths: ["/"], at: 0 });
    setErrors([]);
    go("/");
  }, [go]);

  const origin = target?.origin;
  useEffect(() => {
    if (!origin) return;
    const listen = (event: MessageEvent) => {
      // Only this frame's page on exactly the preview's origin; what it says is data, never markup.
      if (event.origin !== origin || event.source !== frame.current?.contentWindow) return;
      const message = previewMessageSchema.safeParse(event.data);
      if (!message.success) return;
      if (message.data.kind === "error") {
        const text = message.data.text;
        setErrors((list) => [...list.slice(-(MAX_ERRORS - 1)), { id: nextId.current++, text }]);
        return;
      }
      let url: URL;
      try {
        url = new URL(message.data.href);
      } catch {
        return;
      }
      if (url.origin !== origin) return;
      const path = `${url.pathname}${url.search}${url.hash}`;
      setVisited((v) => (v.paths[v.at] === path ? v : { paths: [...v.paths.slice(0, v.at + 1), path], at: v.at + 1 }));
      setAddress(path);
    };
    window.addEventListener("message", listen);
    return () => window.removeEventListener("message", listen);
  }, [origin]);

  const step = (by: -1 | 1) => {
    const at = visited.at + by;
    if (at < 0 || at >= visited.paths.length) return;
    setVisited({ ...visited, at });
    setAddress(visited.paths[at]!);
    go(visited.paths[at]!);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const path = address.trim().startsWith("/") ? address.trim() : `/${address.trim()}`;
    go(path.replace(/^\/+/, "/"));
  };
  const frameWidth = WIDTHS.find((w) => w.id === width)!.width;

  return (
    <div className="pane preview-panel" data-testid="preview-panel">
      <div className="preview-toolbar">
        <div className="preview-controls">
          <button
            type="button"
            className="icon-btn"
            title="Back"
            aria-label="Back"
            disabled={visited.at === 0}
            onClick={() => step(-1)}
          >
            ←
          </button>
          <button
            type="button"
            className="icon-btn"
            title="Forward"
            aria-label="Forward"
            disabled={visited.at === visited.paths.length - 1}
            onClick={() => step(1)}
          >
            →
          </button>
          <button
            type="button"
            className="icon-btn"
            title="Reload"
            aria-label="Reload"
            data-testid="preview-reload"
            onClick={() => go(where)}
          >
            ⟳
          </button>
          <form className="preview-address" onSubmit={submit}>
            <span className="preview-port" title={`The preview of port ${port}`}>
              :{port}
            </span>
            <input
              className="input"
              aria-label="Path in the preview"
              data-testid="preview-address"
              value={address}
              spellCheck={false}
              onChange={(event) => setAddress(event.target.value)}
            />
          </form>
          <select
            className="input preview-width"
            aria-label="Width"
            value={width}
            onChange={(event) => setWidth(event.target.value as Width)}
          >
            {WIDTHS.map((w) => (
              <option key={w.id} value={w.id}>
                {w.label}
              </option>
            ))}
          </select>
          <button
            type="button"
            className={errors.length ? "btn btn-ghost btn-sm preview-error-count" : "btn btn-ghost btn-sm"}
            aria-pressed={showErrors}
            data-testid="preview-errors-toggle"
            onClick={() => setShowErrors((s) => !s)}
          >
            Errors {errors.length}
          </button>
          <button
            type="button"
            className="icon-btn"
            title="Open in a new tab"
            aria-label="Open in a new tab"
            onClick={() => tab.open(port, where)}
          >
            ↗
          </button>
        </div>
        <button
          type="button"
          className="icon-btn"
          title="Close the preview"
          aria-label="Close the preview"
          onClick={onClose}
        >
          ×
        </button>
      </div>
      {(enter.error ?? tab.error) && (
        <p className="ports-error" role="alert">
          {(enter.error ?? tab.error)?.message}
        </p>
      )}
      <div className="preview-stage">
        {target && (
          <iframe
            // A new one-time link is a new frame; hot reload changes the page inside it, not this.
            key={target.load}
            ref={frame}
            src={target.src}
            title={`Preview of port ${port}`}
            data-testid="preview-frame"
            style={{ width: frameWidth }}
            // The app runs as in a tab of its own (its origin is not the IDE's), but may not navigate the IDE.
            sandbox="allow-scripts allow-same-origin allow-forms allow-modals allow-popups allow-popups-to-escape-sandbox allow-downloads"
          />
        )}
      </div>
      {showErrors && (
        <div className="preview-errors" data-testid="preview-errors">
          <div className="preview-errors-head">
            <span>Console errors</span>
            <button type="button" className="btn btn-ghost btn-sm" onClick={() => setErrors([])}>
              Clear
            </button>
          </div>
          {errors.length === 0 ? (
            <p className="muted">No errors on this page.</p>
          ) : (
            <ul>
              {errors.map((error) => (
                <li key={error.id}>{error.text}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
