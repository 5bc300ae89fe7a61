"use client";

import { useEffect, useRef, useState } from "react";
import { usePorts } from "./use-ports";

/** The program's name from its command line, for the notice ("node is listening on 5173"). */
function programName(command: string | null): string {
  if (!command) return "A process";
  const first = command.split(" ")[0] ?? "";
  return first.split("/").pop() || "A process";
}

/**
 * Says so when a port starts listening in the workspace while the IDE is open (not those already
 * listening when it opened), with a way to the Ports view.
 */
export function PortNotice({ projectId, onShow }: { projectId: string; onShow: () => void }) {
  const ports = usePorts(projectId);
  const known = useRef<Set<number> | null>(null);
  const [notice, setNotice] = useState<{ port: number; process: string | null } | null>(null);
  useEffect(() => {
    const list = ports.data?.ports;
    if (!list) return;
    const before = known.current;
    known.current = new Set(list.map((p) => p.port));
    if (!before) return;
    const fresh = list.find((p) => !before.has(p.port));
    if (fresh) setNotice({ port: fresh.port, process: fresh.process });
    else if (notice && !known.current.has(notice.port)) setNotice(null);
  }, [ports.data, notice]);
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
