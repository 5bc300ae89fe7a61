"use client";

import "@/components/ui/settings.css";
import { useEffect, useRef, useState } from "react";

export type SettingsSection = { id: string; label: string };

/**
 * The settings page's table of contents: a link per card, the one being read marked. Beside the
 * cards on a wide screen, above them on a narrow one. The card being read is the last one whose
 * top has passed the upper 40% of the window, worked out once a frame while the page scrolls.
 */
function SettingsNav({ sections }: { sections: readonly SettingsSection[] }) {
  const [current, setCurrent] = useState(sections[0]?.id);
  const ids = sections.map((s) => s.id).join(" ");
  // The last cards cannot scroll up to the line, and the jump to a card may be smooth: the one
  // clicked stays marked until the person scrolls by wheel, touch or key.
  const clicked = useRef<string | null>(null);

  useEffect(() => {
    const order = ids.split(" ");
    let frame = 0;
    const follow = () => {
      frame = 0;
      const line = window.innerHeight * 0.4;
      let reading = order[0];
      for (const id of order) {
        const top = document.getElementById(id)?.getBoundingClientRect().top;
        if (top !== undefined && top <= line) reading = id;
      }
      setCurrent(clicked.current ?? reading);
    };
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(follow);
    };
    const byHand = () => {
      clicked.current = null;
    };
    const inputs = ["wheel", "touchstart", "keydown"] as const;
    window.addEventListener("scroll", onScroll, { passive: true });
    for (const input of inputs) window.addEventListener(input, byHand, { passive: true });
    follow();
    return () => {
      window.removeEventListener("scroll", onScroll);
      for (const input of inputs) window.removeEventListener(input, byHand);
      cancelAnimationFrame(frame);
    };
  }, [ids]);

  return (
    <nav className="settings-nav" aria-label="Sections" data-testid="settings-nav">
      {sections.map((section) => (
        <a
          key={section.id}
          href={`#${section.id}`}
          aria-current={section.id === current ? "location" : undefined}
          onClick={() => {
            clicked.current = section.id;
            setCurrent(section.id);
          }}
        >
          {section.label}
        </a>
      ))}
    </nav>
  );
}

/** A settings page's cards, each the place its link in the table of contents leads to. */
export function SettingsSections({ sections }: { sections: readonly (SettingsSection & { card: React.ReactNode })[] }) {
  return (
    <>
      <SettingsNav sections={sections.map(({ id, label }) => ({ id, label }))} />
      {sections.map(({ id, card }) => (
        <div key={id} id={id} className="settings-anchor">
          {card}
        </div>
      ))}
    </>
  );
}
