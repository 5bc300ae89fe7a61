import { Transform } from "node:stream";

// What the IDE's Preview panel learns from the page it frames: the page's console errors and
// where it navigated, posted to the parent window (it listens to nothing). The
// preview's origin is not the IDE's, so the IDE cannot look into the frame; this script, served
// by the preview proxy on the preview's own origin and added to HTML pages loaded in a frame
// (never to a page opened in a tab of its own), tells it. It gives the previewed app nothing new:
// the app may post the same messages to its parent itself, and the IDE takes what arrives as
// untrusted text from exactly the preview's origin.
//
// It posts to any parent ("*"): the only windows that get a framed page with a session are the
// IDE (whose entry link opened a session in its own cookie partition) and holders of a public
// link, who see the app anyway; another site framing the preview has no session in its partition.

export const FRAME_SCRIPT_PATH = "/__tandem/preview.js";

export const FRAME_SCRIPT = `(() => {
  if (window.parent === window) return;
  const post = (message) => {
    try { window.parent.postMessage(Object.assign({ tandemPreview: 1 }, message), "*"); } catch {}
  };
  const asText = (value) => {
    try {
      if (value instanceof Error) return value.stack || String(value);
      return typeof value === "string" ? value : JSON.stringify(value);
    } catch { return String(value); }
  };
  const error = console.error;
  console.error = function (...args) {
    post({ kind: "error", text: args.map(asText).join(" ").slice(0, 4000) });
    return error.apply(this, args);
  };
  addEventListener("error", (event) => {
    if (event.error || event.message) post({ kind: "error", text: asText(event.error || event.message).slice(0, 4000) });
  });
  addEventListener("unhandledrejection", (event) => {
    post({ kind: "error", text: ("Unhandled rejection: " + asText(event.reason)).slice(0, 4000) });
  });
  const where = () => post({ kind: "location", href: location.href });
  for (const name of ["pushState", "replaceState"]) {
    const original = history[name];
    history[name] = function (...args) {
      const result = original.apply(this, args);
      where();
      return result;
    };
  }
  addEventListener("popstate", where);
  addEventListener("hashchange", where);
  where();
})();
`;

const TAG = Buffer.from(`<script src="${FRAME_SCRIPT_PATH}"></script>`);
/** Past this much HTML without a <head> or <html>, the script goes first. */
const LOOK_AHEAD = 16 * 1024;

/**
 * Where the script goes: after `<head ...>`; once it is clear there is none (the body began, the
 * page ended, or 16 KB came without one), after `<html ...>`, else after a doctype, else first.
 * null: read on.
 */
function insertionPoint(text: string, ended: boolean): number | null {
  const lower = text.toLowerCase();
  const head = afterTag(lower, "head");
  if (head !== null) return head;
  if (!ended && text.length < LOOK_AHEAD && !/<body[\s>]/.test(lower)) return null;
  const html = afterTag(lower, "html");
  if (html !== null) return html;
  const doctype = /^\s*<!doctype[^>]*>/.exec(lower);
  return doctype ? doctype[0].length : 0;
}

/**
 * Where the first complete `<name>` or `<name ...>` tag of `lower` ends, or null. A scan, not a
 * regular expression: the app writes the page, and `<name(\s[^>]*)?>` backtracks through
 * every `<name ` with no `>` after it (quadratic: seconds of the server's event loop for 64 KB).
 */
function afterTag(lower: string, name: string): number | null {
  const open = `<${name}`;
  for (let at = lower.indexOf(open); at >= 0; at = lower.indexOf(open, at + 1)) {
    const next = lower[at + open.length];
    if (next === ">") return at + open.length + 1;
    if (next !== undefined && /\s/.test(next)) {
      // No `>` after this one: none after any later one either.
      const close = lower.indexOf(">", at);
      return close < 0 ? null : close + 1;
    }
  }
  return null;
}

/** Adds the script tag to an HTML page as it streams by (holding back at most 16 KB to find its place). */
export function withFrameScript(): Transform {
  let held: Buffer[] = [];
  let placed = false;
  const place = (stream: Transform, ended: boolean) => {
    const all = Buffer.concat(held);
    // latin1 maps bytes one to one, so an index in the text is an index in the bytes.
    const at = insertionPoint(all.toString("latin1"), ended);
    if (at === null) return;
    placed = true;
    held = [];
    stream.push(Buffer.concat([all.subarray(0, at), TAG, all.subarray(at)]));
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (placed) return done(null, chunk);
      held.push(chunk);
      place(this, false);
      done();
    },
    flush(done) {
      if (!placed) place(this, true);
      done();
    },
  });
}
