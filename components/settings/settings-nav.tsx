"use client";

import { useEffect, useState } from "react";

export type SettingsSection = { id: string; label: string };

/**
 * The settings page's table of contents: a link per card, the one being read marked. Beside the
 * cards on a wide screen, above them on a narrow one. The mark follows the topmost card whose
 * top has scrolled into the upper part of the window (an IntersectionObserver, nothing polls).
 */
export function SettingsNav({ sections }: { sections: readonly SettingsSection[] }) {
  const [current, setCurrent] = useState(sections[0]?.id);
  const ids = sections.map((s) => s.id).join(" ");

  useEffect(() => {
    const visible = new Set<string>();
    const order = ids.split(" ");
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (entry.isIntersecting) visible.add(entry.target.id);
          else visible.delete(entry.target.id);
        }
        const first = order.find((id) => visible.has(id));
        if (first) setCurrent(first);
      },
      { rootMargin: "0px 0px -60% 0px" },
    );
    for (const id of order) {
      const element = document.getElementById(id);
      if (element) observer.observe(element);
    }
    return () => observer.disconnect();
  }, [ids]);

  return (
    <nav className="settings-nav" aria-label="Sections" data-testid="settings-nav">
      {sections.map((section) => (
        <a
          key={section.id}
          href={`#${section.id}`}
          aria-current={section.id === current ? "location" : undefined}
          onClick={() => setCurrent(section.id)}
        >
          {section.label}
        </a>
      ))}
    </nav>
  );
}

/** One card of a settings page, the place its link in the nav leads to. */
export function SettingsAnchor({ id, children }: { id: string; children: React.ReactNode }) {
  return (
    <div id={id} className="settings-anchor">
      {children}
    </div>
  );
}
