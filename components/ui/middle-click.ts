import type { MouseEvent } from "react";

/**
 * Props that close a tab on a middle click. On Linux a middle click also pastes the primary
 * selection into whatever takes focus when the button is released (the next tab's editor or
 * terminal once this one is gone); cancelling the press and the release stops that paste, and
 * the press's default autoscroll.
 */
export function closeOnMiddleClick(close: () => void) {
  const cancelMiddle = (event: MouseEvent) => {
    if (event.button === 1) event.preventDefault();
  };
  return {
    onMouseDown: cancelMiddle,
    onMouseUp: cancelMiddle,
    onAuxClick: (event: MouseEvent) => {
      if (event.button !== 1) return;
      event.preventDefault();
      close();
    },
  };
}
