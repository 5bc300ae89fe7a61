import { secretPlaceholder } from "@/lib/secrets";

// The one place that knows how a secret's value can show up in text, and replaces it with
// `[secret NAME]`. Applied where tool results, session events, progress, shell logs and terminal
// output are recorded or sent (docs/security.md#secrets), never scattered through the tools.

export type SecretValue = { name: string; value: string };

/** Redacts a stream cut into pieces anywhere: a value split across two pieces is still found. */
export interface StreamRedactor {
  /** What can be shown of the stream so far; the end that could start a value is held back. */
  push(text: string): string;
  /** Whatever was held back: call when the stream ends (or pauses long enough to show it). */
  end(): string;
  /** Whether something is held back now. */
  readonly holding: boolean;
}

/** The secrets a process gets, and the redactor that hides exactly their values in what it prints. */
export type ProcessSecrets = { env: Record<string, string>; redactor: Redactor };

export interface Redactor {
  /** The names it hides, for the agent's environment block. */
  readonly names: readonly string[];
  readonly empty: boolean;
  redact(text: string): string;
  /** Every string in a JSON-like value redacted (objects and arrays copied, other values kept). */
  redactDeep<T>(value: T): T;
  stream(): StreamRedactor;
}

type Needle = { text: string; placeholder: string };

/** Encoded forms shorter than this are not looked for: too likely to occur by chance. */
const MIN_NEEDLE = 6;
const BASE64_LINE = 76;

export function createRedactor(secrets: readonly SecretValue[]): Redactor {
  const needles = buildNeedles(secrets);
  const redact = (text: string) => {
    if (needles.length === 0 || text.length === 0) return text;
    let out = text;
    for (const n of needles) if (out.includes(n.text)) out = out.split(n.text).join(n.placeholder);
    return out;
  };
  const redactDeep = <T>(value: T): T => {
    if (needles.length === 0) return value;
    return deep(value, redact) as T;
  };
  return {
    names: [...new Set(secrets.map((s) => s.name))],
    empty: needles.length === 0,
    redact,
    redactDeep,
    stream() {
      let held = "";
      return {
        get holding() {
          return held !== "";
        },
        push(text) {
          if (needles.length === 0) return text;
          const out = redact(held + text);
          const keep = heldBack(out, needles);
          held = out.slice(out.length - keep);
          return out.slice(0, out.length - keep);
        },
        end() {
          const rest = held;
          held = "";
          return rest;
        },
      };
    },
  };
}

/** The longest end of `text` that is the start of some needle (and not a whole one). */
function heldBack(text: string, needles: readonly Needle[]): number {
  let keep = 0;
  for (const { text: needle } of needles) {
    let i = text.indexOf(needle[0]!, Math.max(0, text.length - needle.length + 1));
    while (i !== -1 && text.length - i > keep) {
      if (needle.startsWith(text.slice(i))) {
        keep = text.length - i;
        break;
      }
      i = text.indexOf(needle[0]!, i + 1);
    }
  }
  return keep;
}

function deep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((v) => deep(v, redact));
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v, redact)]));
  }
  return value;
}

/** Every form of every value to look for, longest first (a longer form may contain a shorter one). */
function buildNeedles(secrets: readonly SecretValue[]): Needle[] {
  const found = new Map<string, string>();
  for (const { name, value } of secrets) {
    if (!value) continue;
    const placeholder = secretPlaceholder(name);
    for (const form of encodings(value))
      if (form.length >= MIN_NEEDLE && !found.has(form)) found.set(form, placeholder);
    // A value shorter than the minimum of encoded forms is still hidden as itself.
    if (!found.has(value)) found.set(value, placeholder);
  }
  return [...found].map(([text, placeholder]) => ({ text, placeholder })).sort((a, b) => b.text.length - a.text.length);
}

function encodings(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms = [value];
  const hex = bytes.toString("hex");
  forms.push(hex, hex.toUpperCase());
  const uri = encodeURIComponent(value);
  forms.push(uri, lowerPercent(uri), new URLSearchParams({ v: value }).toString().slice(2));
  forms.push(JSON.stringify(value).slice(1, -1));
  // base64 of the value wherever it starts in a longer text: only 3-byte groups made wholly of the
  // value encode the same whatever surrounds it.
  for (let offset = 0; offset < 3; offset++) {
    const b64 = base64Inside(bytes, offset);
    if (!b64) continue;
    forms.push(b64, b64.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  // `base64` wraps its output at 76 columns; a terminal turns each newline into CR LF.
  const whole = base64Inside(bytes, 0);
  if (whole && whole.length > BASE64_LINE) {
    const lines = whole.match(new RegExp(`.{1,${BASE64_LINE}}`, "g")) ?? [];
    forms.push(lines.join("\n"), lines.join("\r\n"));
  }
  return forms;
}

/** The base64 characters that depend only on the value when it starts `offset` bytes into a group. */
function base64Inside(bytes: Buffer, offset: number): string {
  const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
  const first = offset === 0 ? 0 : 1;
  const last = Math.floor(padded.length / 3);
  if (last <= first) return "";
  return padded.subarray(first * 3, last * 3).toString("base64");
}

const lowerPercent = (text: string) => text.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
