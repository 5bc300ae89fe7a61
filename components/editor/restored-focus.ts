// After a reload the active tab's editor takes the keyboard once Monaco is ready (open-tabs.ts
// asks for it when it restores the tabs), as VS Code's does: keys typed then go into the file. But
// Monaco is ready seconds into a cold load, and by then the person may have put the keyboard
// somewhere: the chat's input, the terminal, Quick Open, any input. That is never taken from them.
// What holds it without a key or a pointer press from the person since the tabs were restored was
// given it by the page (the new session's message box takes it when nothing has it), and the
// editor takes it as VS Code's would.

/** When the tabs were restored, and when the person last pressed a key or a pointer (performance.now()). */
let restoredAt: number | null = null;
let lastInput = -1;

const noteInput = () => {
  lastInput = performance.now();
};

/** The tabs are being restored: the person's keys and presses are noted from now on. */
export function tabsRestoring() {
  if (restoredAt === null) {
    // Capture: a handler that stops an event (Monaco, xterm, a dialog) does not hide it.
    window.addEventListener("pointerdown", noteInput, true);
    window.addEventListener("keydown", noteInput, true);
  }
  restoredAt = performance.now();
}

/**
 * Whether the restored editor inside `host` may take the keyboard now: nothing has it, or what has
 * it is inside `host` (the text shown before the editor), or the person has pressed nothing since
 * the tabs were restored.
 */
export function keyboardFree(host: Element | null): boolean {
  const active = document.activeElement;
  if (!active || active === document.body || host?.contains(active)) return true;
  return restoredAt !== null && lastInput < restoredAt;
}
