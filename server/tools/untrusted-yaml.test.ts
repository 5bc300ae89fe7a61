import { describe, expect, it } from "vitest";
import { YAML_MAX_DEPTH, YamlRefusal, parseUntrustedYaml } from "./untrusted-yaml";

// YAML from the workspace or the model, written as an attacker would: nesting that overflows the
// yaml package's recursive composer (and held the server's thread for seconds), alias bombs, sizes.

const refusal = (text: string) => {
  try {
    parseUntrustedYaml(text);
  } catch (error) {
    if (error instanceof YamlRefusal) return error.message;
    throw error;
  }
  return null;
};

describe("parseUntrustedYaml", () => {
  it("reads a workflow as YAML and as JSON", () => {
    const yaml = [
      "inputs:",
      "  target: { default: web }",
      "steps:",
      "  - id: build",
      "    run: echo '[[[[' {{ inputs.target }}",
      "  - parallel:",
      "      - id: review",
      "        prompt: |",
      "          Review it: {{ steps.build.output }} [[[[",
      "        tools: [read_file, grep]",
    ].join("\n");
    expect(parseUntrustedYaml(yaml)).toMatchObject({
      steps: [{ id: "build" }, { parallel: [{ tools: ["read_file", "grep"] }] }],
    });
    expect(parseUntrustedYaml(JSON.stringify({ steps: [{ id: "a", run: "echo ]]]" }] }))).toEqual({
      steps: [{ id: "a", run: "echo ]]]" }],
    });
  });

  it("refuses deep nesting before parsing, in flow and block style, quickly", () => {
    const started = performance.now();
    for (const deep of [
      "[".repeat(10_000) + "]".repeat(10_000),
      `{"a":${'{"a":'.repeat(5_000)}1${"}".repeat(5_001)}`,
      `${"- ".repeat(5_000)}x\n`,
      Array.from({ length: 40 }, (_, i) => `${" ".repeat(i * 2)}k${i}:`).join("\n"),
      // A map's sequence may sit at its key's column: two levels per indentation step.
      Array.from({ length: 20 }, (_, i) => `${" ".repeat(i * 2)}- k${i}:`).join("\n"),
      // Quoted closers and comments do not close what is open.
      `${'[ "]", '.repeat(40)}x${"]".repeat(40)}`,
      `${Array.from({ length: 40 }, (_, i) => `${" ".repeat(i)}k${i}:\n# a comment at column 0`).join("\n")}`,
    ]) {
      expect(refusal(deep)).toMatch(new RegExp(`nests deeper than ${YAML_MAX_DEPTH} levels`));
    }
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("refuses an alias bomb, a text over the size cap, and names the line of a syntax error", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]",
    ].join("\n");
    expect(refusal(bomb)).toMatch(/not valid YAML.*alias/i);
    expect(refusal(`steps: "${"x".repeat(70_000)}"`)).toMatch(/at most 65536 are read/);
    expect(refusal("steps:\n  - id: a\n    run: [unclosed")).toMatch(/^not valid YAML \(line \d+, column \d+\)/);
  });
});
