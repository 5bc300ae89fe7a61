import type { AddressObject } from "mailparser";
import { z } from "zod";
import { defineTool } from "./define-tool";
import { htmlToMarkdown } from "./html-to-markdown";
import { ToolFailure, ok } from "./result";
import { formatSize } from "./text-window";

// email_parse: an .eml message in the workspace (RFC 822/MIME) read with mailparser: its headers,
// its text (the HTML part as Markdown when it has no plain one), and its attachments listed, not written.

const MAX_EML_BYTES = 20 * 1024 * 1024;
const TEXT_CHARS = 50_000;

const DESCRIPTION = `Reads an email message file (.eml, RFC 822 / MIME) from the workspace: its headers (from, to, cc, subject, date, message id), its text (converted from HTML when there is no plain-text part) and its attachments listed by name, type and size. Attachments are not written anywhere.`;

const addresses = (value: AddressObject | AddressObject[] | undefined) =>
  value ? (Array.isArray(value) ? value : [value]).map((a) => a.text).join(", ") : undefined;

export const emailParseTool = defineTool({
  name: "email_parse",
  onDemand: "always",
  kind: "read",
  description: DESCRIPTION,
  input: z.object({
    path: z.string().min(1).describe("The .eml file, relative to the workspace root."),
    html: z.boolean().optional().describe("Also return the HTML body as it is (default false)."),
  }),
  describe: (i) => `Read email ${i.path}`,
  async execute(input, ctx) {
    const resolved = await ctx.workspace.resolve(input.path);
    const label = resolved.requested;
    const bytes = await ctx.workspace.readBytes(input.path, MAX_EML_BYTES);
    if (bytes.subarray(0, 8192).includes(0))
      throw new ToolFailure("BINARY_FILE", `'${label}' is a binary file, not an email message.`);
    // Loaded at the first call: mailparser and its encodings are about 6 MB of an idle server's heap.
    const { simpleParser } = await import("mailparser");
    const mail = await simpleParser(bytes, { skipImageLinks: true, skipTextLinks: true });
    if (mail.headers.size === 0)
      throw new ToolFailure("INVALID_INPUT", `'${label}' has no email headers; it is not an .eml message.`);
    const headers: Record<string, string | undefined> = {
      from: addresses(mail.from),
      to: addresses(mail.to),
      cc: addresses(mail.cc),
      replyTo: addresses(mail.replyTo),
      subject: mail.subject,
      date: mail.date?.toISOString(),
      messageId: mail.messageId,
      inReplyTo: typeof mail.inReplyTo === "string" ? mail.inReplyTo : undefined,
    };
    const attachments = mail.attachments.map((a) => ({
      filename: a.filename ?? "(unnamed)",
      contentType: a.contentType,
      size: a.size,
      ...(a.related ? { inline: true } : {}),
    }));
    // An HTML-only message reads as Markdown, as web_fetch reads pages (a bare fragment in a
    // document of its own: htmlToMarkdown finds no body in a fragment).
    const html = typeof mail.html === "string" ? mail.html : "";
    const page = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><body>${html}</body></html>`;
    const text = (
      mail.text?.trim() || (html ? (await htmlToMarkdown(page, "https://mail.invalid/")).markdown : "")
    ).trim();
    const shownText =
      text.length > TEXT_CHARS ? `${text.slice(0, TEXT_CHARS)}\n[… ${text.length - TEXT_CHARS} more characters]` : text;
    const lines = [
      ...Object.entries(headers)
        .filter(([, v]) => v)
        .map(([k, v]) => `${k}: ${v}`),
      `attachments: ${attachments.length ? attachments.map((a) => `${a.filename} (${a.contentType}, ${formatSize(a.size)})`).join("; ") : "none"}`,
      "",
      shownText || "(no text)",
      ...(input.html && html ? ["", "--- HTML ---", html] : []),
    ];
    const llm = lines.join("\n");
    return ok(
      llm,
      { kind: "text", text: llm },
      { path: label, attachments: attachments.length, subject: mail.subject ?? null },
    );
  },
});
