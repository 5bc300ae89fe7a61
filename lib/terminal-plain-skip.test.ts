import { describe, expect, it } from "vitest";
import { plainSkip, plainSkipAfter, sequenceStateAt } from "./terminal-plain-skip";

function flood(lines: number): string {
  let text = "";
  for (let i = 0; i < lines; i++) text += `line ${i} ${"abcdefghij".repeat(i % 13)}\r\n`;
  return text;
}

describe("plainSkip", () => {
  it("skips nothing when too few lines follow", () => {
    expect(plainSkip(flood(100), 200, 24)).toBeNull();
  });

  it("skips only whole plain lines after the last escape sequence", () => {
    const text = `${flood(50)}\x1b[31mred\r\n${flood(1000)}`;
    const skip = plainSkip(text, 200, 24)!;
    expect(skip.from).toBe(text.indexOf("red\r\n") + 5);
    expect(skip.to).toBeGreaterThan(skip.from);
    expect(text[skip.to - 1]).toBe("\n");
  });
});

describe("plainSkipAfter", () => {
  const text100 = flood(100);
  it("skips as plainSkip does when the text starts on plain text", () => {
    expect(plainSkip(text100, 10, 5)).not.toBeNull();
    expect(plainSkipAfter(text100, 10, 5, "ground")).toEqual(plainSkip(text100, 10, 5));
  });

  it("starts after the line where a sequence begun before the text ends", () => {
    const text = `31mred\r\n${text100}`;
    const skip = plainSkipAfter(text, 10, 5, "csi");
    expect(skip?.from).toBe("31mred\r\n".length);
    expect(skip?.to).toBe(plainSkip(text, 10, 5)!.to);
  });

  it("skips nothing while a sequence begun before the text goes on", () => {
    expect(plainSkipAfter(text100, 10, 5, "osc")).toBeNull();
  });
});

describe("sequenceStateAt", () => {
  const end = (text: string, before: Parameters<typeof sequenceStateAt>[2] = "ground") =>
    sequenceStateAt(text, text.length, before);

  it("is on plain text after plain text and after finished sequences", () => {
    expect(end("hello\r\n")).toBe("ground");
    expect(end("\x1b[1;32mgreen\x1b[0m $ ")).toBe("ground");
    expect(end("\x1b]0;title\x07text")).toBe("ground");
    expect(end("\x1bP1$r0m\x1b\\text")).toBe("ground");
    expect(end("\x1b(Btext")).toBe("ground");
  });

  it("follows a sequence cut at the end of a piece of output", () => {
    expect(end("text\x1b")).toBe("escape");
    expect(end("text\x1b[3")).toBe("csi");
    expect(end("text\x1b]0;a title that goes on")).toBe("osc");
    expect(end("text\x1bPsixel data")).toBe("dcs");
    // A BEL ends an OSC, but not a DCS string.
    expect(end("\x1bPdata\x07more")).toBe("dcs");
  });

  it("carries a sequence over from the previous piece until it ends", () => {
    expect(end("1;2", "csi")).toBe("csi");
    expect(end("1mplain text", "csi")).toBe("ground");
    expect(end("still the title\r\n", "osc")).toBe("osc");
    expect(end("title\x07plain", "osc")).toBe("ground");
    // An ESC starts afresh whatever came before.
    expect(end("\x1b[0mplain", "dcs")).toBe("ground");
  });

  it("gives up on C1 controls, which it does not follow", () => {
    expect(end("text\x9b31mred")).toBe("unknown");
    expect(end("more text", "unknown")).toBe("unknown");
    expect(end("\x1b[0mplain", "unknown")).toBe("ground");
  });

  it("answers for a prefix of the text", () => {
    const text = "\x1b[31mred\r\n\x1b[3";
    expect(sequenceStateAt(text, text.indexOf("\n") + 1, "ground")).toBe("ground");
    expect(sequenceStateAt(text, text.length, "ground")).toBe("csi");
  });
});
