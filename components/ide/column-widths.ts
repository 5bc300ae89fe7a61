import type { LayoutStorage } from "react-resizable-panels";

/**
 * Keeps the side columns' widths in pixels in this browser, as VS Code does: a side bar widened to
 * 360 px is 360 px again after a reload in a wider or narrower window, where a remembered share of
 * the window would not be. The panel library reads and writes shares (percentages of the group);
 * this storage turns `fixed` panels' shares into pixels on the way in and back on the way out, and
 * gives the rest of the width to the others in their remembered proportion.
 */
export function pixelColumnStorage(
  backing: LayoutStorage,
  fixed: readonly string[],
  groupWidth: () => number,
  resized: () => number = () => 0,
): LayoutStorage {
  // The panel library reads its layout on every render of the columns (a store snapshot), and the
  // group's width is a forced layout in the middle of a render (6-26 ms each time on a cold load).
  // The shares are worked out again only when the stored pixels or the window's size (`resized`,
  // a count of resizes) changed.
  const answers = new Map<string, { raw: string | null; resizes: number; shares: string | null }>();
  return {
    getItem(key) {
      const raw = backing.getItem(key);
      const resizes = resized();
      const known = answers.get(key);
      if (known && known.raw === raw && known.resizes === resizes) return known.shares;
      const shares = toShares(raw);
      answers.set(key, { raw, resizes, shares });
      return shares;
    },
    setItem(key, value) {
      const layout = read(value);
      const width = groupWidth();
      if (!layout || width <= 0) return;
      const pixels = Object.fromEntries(
        Object.entries(layout).map(([id, share]) => [id, Math.round((share / 100) * width)]),
      );
      try {
        backing.setItem(key, JSON.stringify(pixels));
      } catch {
        // Storage full or disabled: the widths are simply not remembered.
      }
    },
  };

  function toShares(raw: string | null): string | null {
    const saved = read(raw);
    const width = groupWidth();
    if (!saved || width <= 0) return null;
    const layout: Record<string, number> = {};
    let used = 0;
    for (const id of fixed) {
      const share = Math.min(100, ((saved[id] ?? 0) / width) * 100);
      layout[id] = share;
      used += share;
    }
    const flexible = Object.keys(saved).filter((id) => !fixed.includes(id));
    const weights = flexible.reduce((sum, id) => sum + saved[id]!, 0);
    for (const id of flexible) layout[id] = weights > 0 ? (saved[id]! / weights) * Math.max(0, 100 - used) : 0;
    return JSON.stringify(layout);
  }
}

let resizes = 0;
let counting = false;

/** How many times the window has been resized since this was first asked (pixelColumnStorage's `resized`). */
export function windowResizes(): number {
  if (!counting) {
    counting = true;
    window.addEventListener("resize", () => resizes++);
  }
  return resizes;
}

function read(json: string | null): Record<string, number> | null {
  try {
    const value: unknown = JSON.parse(json ?? "null");
    if (!value || typeof value !== "object") return null;
    const entries = Object.entries(value).filter(
      (entry): entry is [string, number] => typeof entry[1] === "number" && Number.isFinite(entry[1]) && entry[1] >= 0,
    );
    return entries.length ? Object.fromEntries(entries) : null;
  } catch {
    return null;
  }
}
