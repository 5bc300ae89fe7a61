import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { FRAME_SCRIPT_PATH, withFrameScript } from "./frame-script";

// Where the Preview panel's script goes into a framed page, whatever the chunks it arrives in.

const TAG = `<script src="${FRAME_SCRIPT_PATH}"></script>`;
const through = (...chunks: string[]) => text(Readable.from(chunks.map((c) => Buffer.from(c))).pipe(withFrameScript()));

describe("withFrameScript", () => {
  it("goes right after <head>, even when the tag is split between chunks", async () => {
    expect(await through("<!doctype html><html><he", 'ad data-x="1">', "<title>t</title></head>")).toBe(
      `<!doctype html><html><head data-x="1">${TAG}<title>t</title></head>`,
    );
  });

  it("goes after <html> without a head, after the doctype without either, and first in a fragment", async () => {
    expect(await through("<!DOCTYPE html><html lang=en><body>x</body></html>")).toBe(
      `<!DOCTYPE html><html lang=en>${TAG}<body>x</body></html>`,
    );
    expect(await through("<!doctype html><p>x")).toBe(`<!doctype html>${TAG}<p>x`);
    expect(await through("<p>x</p>")).toBe(`${TAG}<p>x</p>`);
    expect(await through("")).toBe(TAG);
  });

  it("holds back at most 16 KB looking for its place, and keeps multi-byte text whole", async () => {
    const long = "é".repeat(10_000);
    const out = await through(`<p>${long}`, "<head>", "rest");
    expect(out.startsWith(`${TAG}<p>é`)).toBe(true);
    expect(out.endsWith(`${long}<head>rest`)).toBe(true);
    // A <header> element is not the <head>.
    expect(await through("<html><header>h</header>")).toBe(`<html>${TAG}<header>h</header>`);
  });

  it("finds its place in linear time in a page written to make a backtracking scan take seconds", async () => {
    // The app writes the page: 130 KB of tags that never close, in one chunk as a socket reads it.
    const page = `${"<head ".repeat(11_000)}${"<html ".repeat(11_000)}`;
    const started = performance.now();
    const out = await through(page);
    expect(performance.now() - started).toBeLessThan(250);
    expect(out).toBe(`${TAG}${page}`);
  });
});
