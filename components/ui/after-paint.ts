/**
 * Runs `run` once the browser has painted its next frame (a task after that frame's animation
 * callbacks); returns what cancels it. For work that must not share the frame it follows: what it
 * starts (a large script's download and off-thread compile) would be in the way of that frame's
 * layout, which waits on the renderer's thread pool (see editor-area.tsx).
 */
export function afterPaint(run: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(run, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    if (timer !== undefined) clearTimeout(timer);
  };
}
