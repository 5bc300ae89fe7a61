import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AFTER_INPUT_MS, FLOOD_BYTES, FLOOD_WRITE_INTERVAL_MS, OutputPacer } from "./output-pacer";

interface Written {
  bytes: Uint8Array;
  parsed: () => void;
}

function pacer() {
  const written: Written[] = [];
  const parsed: number[] = [];
  const output = new OutputPacer({
    write: (bytes, done) => written.push({ bytes, parsed: done }),
    onParsed: (bytes) => parsed.push(bytes),
  });
  return { output, written, parsed };
}

const text = (s: string) => new TextEncoder().encode(s);
const decode = (written: Written[]) => written.map((w) => new TextDecoder().decode(w.bytes)).join("");

describe("OutputPacer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("writes typing and prompts at once, however often they come", () => {
    const { output, written } = pacer();
    for (const key of "ls -la") {
      output.push(text(key));
      vi.advanceTimersByTime(5);
    }
    expect(written).toHaveLength(6);
    expect(decode(written)).toBe("ls -la");
  });

  it("gathers a flood into one write per interval, in order and complete", () => {
    const { output, written } = pacer();
    const frame = "y\r\n".repeat(FLOOD_BYTES / 3 + 1);
    let sent = "";
    for (let i = 0; i < 20; i++) {
      output.push(text(`${i}:${frame}`));
      sent += `${i}:${frame}`;
      vi.advanceTimersByTime(8);
    }
    vi.advanceTimersByTime(FLOOD_WRITE_INTERVAL_MS);
    expect(decode(written)).toBe(sent);
    // 20 frames over 160 ms: the first at once, then one write per interval.
    expect(written.length).toBeLessThanOrEqual(Math.ceil(160 / FLOOD_WRITE_INTERVAL_MS) + 2);
  });

  it("writes the flood as it comes right after the person types, so Ctrl-C shows at once", () => {
    const { output, written } = pacer();
    output.push(text("y\r\n".repeat(FLOOD_BYTES)));
    output.push(text("y\r\n".repeat(100)));
    expect(written).toHaveLength(1);
    output.inputSent();
    expect(written).toHaveLength(2);
    output.push(text("y\r\n".repeat(FLOOD_BYTES)));
    output.push(text("^C\r\n$ "));
    expect(decode(written.slice(2))).toBe(`${"y\r\n".repeat(FLOOD_BYTES)}^C\r\n$ `);
    vi.advanceTimersByTime(AFTER_INPUT_MS);
    output.push(text("y\r\n".repeat(FLOOD_BYTES)));
    output.push(text("more"));
    expect(decode(written.slice(-1))).not.toContain("more");
  });

  it("reports each batch once the terminal has parsed it", () => {
    const { output, written, parsed } = pacer();
    output.push(text("a".repeat(FLOOD_BYTES)));
    output.push(text("b".repeat(100)));
    vi.advanceTimersByTime(FLOOD_WRITE_INTERVAL_MS);
    expect(parsed).toEqual([]);
    for (const w of written) w.parsed();
    expect(parsed).toEqual([FLOOD_BYTES, 100]);
  });

  it("drops output it has not written once disposed, and reports nothing after", () => {
    const { output, written, parsed } = pacer();
    output.push(text("a".repeat(FLOOD_BYTES)));
    output.push(text("stale"));
    output.dispose();
    vi.advanceTimersByTime(FLOOD_WRITE_INTERVAL_MS * 2);
    expect(written).toHaveLength(1);
    written[0]!.parsed();
    expect(parsed).toEqual([]);
  });
});
