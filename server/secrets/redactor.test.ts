import { describe, expect, it } from "vitest";
import { createRedactor } from "./redactor";

const value = "s3cr3t-V4lue/with+odd=chars";
const redactor = createRedactor([{ name: "API_TOKEN", value }]);
const hidden = "[secret API_TOKEN]";

describe("createRedactor", () => {
  it("hides the value and its common encodings", () => {
    const b64 = Buffer.from(value).toString("base64");
    const forms = [
      value,
      b64,
      Buffer.from(`${value}\n`).toString("base64"),
      Buffer.from(value).toString("hex"),
      Buffer.from(value).toString("hex").toUpperCase(),
      encodeURIComponent(value),
      new URLSearchParams({ t: value }).toString(),
      JSON.stringify({ token: value }),
      Buffer.from(value).toString("base64url"),
    ];
    for (const form of forms) {
      const out = redactor.redact(`before ${form} after`);
      expect(out, form).toContain(hidden);
      expect(out, form).not.toContain(value);
      expect(out, form).not.toContain(b64.slice(0, 12));
    }
  });

  it("finds the value's base64 wherever it starts inside a longer encoded text", () => {
    for (const prefix of ["", "a", "ab", "abc", "TOKEN="]) {
      const out = redactor.redact(Buffer.from(`${prefix}${value}!!`).toString("base64"));
      expect(out, prefix).toContain(hidden);
    }
  });

  it("finds base64 wrapped at 76 columns, as base64(1) prints a long value", () => {
    const long = "L0ng-".repeat(30);
    const r = createRedactor([{ name: "LONG", value: long }]);
    const wrapped = Buffer.from(long)
      .toString("base64")
      .match(/.{1,76}/g)!
      .join("\r\n");
    expect(r.redact(wrapped)).toContain("[secret LONG]");
  });

  it("redacts a value split across streamed pieces, and holds back only what could start one", () => {
    const stream = redactor.stream();
    const pieces = ["log: ", value.slice(0, 5), value.slice(5, 11), `${value.slice(11)} done\n`, "plain"];
    let out = "";
    const shown: string[] = [];
    for (const piece of pieces) {
      const part = stream.push(piece);
      shown.push(part);
      out += part;
    }
    out += stream.end();
    expect(out).toBe(`log: ${hidden} done\nplain`);
    expect(shown[0]).toBe("log: ");
    expect(shown.join("")).not.toContain(value.slice(0, 5));
  });

  it("redacts every string of an event payload", () => {
    const payload = { llm: `token ${value}`, display: { output: [value], exitCode: 0 }, when: new Date(0) };
    const out = redactor.redactDeep(payload);
    expect(JSON.stringify(out)).not.toContain(value);
    expect(out.display.exitCode).toBe(0);
    expect(out.when).toBeInstanceOf(Date);
  });

  it("with no secrets, changes nothing", () => {
    const none = createRedactor([]);
    expect(none.empty).toBe(true);
    expect(none.redact("abc")).toBe("abc");
    expect(none.stream().push("ab")).toBe("ab");
  });
});
