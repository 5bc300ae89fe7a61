"use client";

import { useEffect, useRef, useState } from "react";
import { autoOpenPreview } from "@/components/preview/auto-open";
import { usePreview } from "@/components/preview/preview-context";
import { usePorts } from "./use-ports";

/** The program's name from its command line, for the notice ("node is listening on 5173"). */
function programName(command: string | null): string {
  if (!command) return "A process";
  const first = command.split(" ")[0] ?? "";
  return first.split("/").pop() || "A process";
}

/**
 * Says so when a port starts listening in the workspace while the IDE is open (not those already
 * listening when it opened), once per port, to those who may open its preview: Open preview
 * shows it beside the editor, or it opens by itself when the person chose so (auto-open.ts).
 */
export function PortNotice({ projectId, onShow }: { projectId: string; onShow: () => void }) {
  const ports = usePorts(projectId);
  const preview = usePreview();
  const known = useRef<Set<number> | null>(null);
  const told = useRef(new Set<number>());
  const [notice, setNotice] = useState<{ port: number; process: string | null } | null>(null);
  useEffect(() => {
    const list = ports.data?.ports;
    if (!list) return;
    const before = known.current;
    known.current = new Set(list.map((p) => p.port));
    if (!before) {
      for (const port of list) told.current.add(port.port);
      return;
    }
    const fresh = list.find((p) => !before.has(p.port) && !told.current.has(p.port) && p.canOpen);
    if (fresh) {
      told.current.add(fresh.port);
      if (autoOpenPreview()) preview.open(fresh.port);
      else setNotice({ port: fresh.port, process: fresh.process });
    } else if (notice && !known.current.has(notice.port)) setNotice(null);
  }, [ports.data, notice, preview]);
  if (!notice) return null;
  return (
    <output className="port-notice" data-testid="port-notice">
      <span>
        {programName(notice.process)} is listening on {notice.port}
      </span>
      <button
        type="button"
        className="btn btn-primary btn-sm"
        onClick={() => {
          preview.open(notice.port);
          setNotice(null);
        }}
      >
        Open preview
      </button>
      <button
        type="button"
        className="btn btn-ghost btn-sm"
        onClick={() => {
          onShow();
          setNotice(null);
        }}
      >
        Show ports
      </button>
      <button type="button" className="btn btn-ghost btn-sm" aria-label="Dismiss" onClick={() => setNotice(null)}>
        ×
      </button>
    </output>
  );
}
