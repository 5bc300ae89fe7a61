import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useToolSessions } from "@/server/test/tool-session";
import { emailParseTool } from "./email-parse";

const session = useToolSessions();

const EML = [
  "From: Ada Lovelace <ada@example.com>",
  "To: Bob <bob@example.com>, carol@example.com",
  "Subject: =?UTF-8?B?UmVwb3J0IOKAkyBRMw==?=",
  "Date: Tue, 03 Nov 2026 10:00:00 +0000",
  "Message-ID: <q3@example.com>",
  "MIME-Version: 1.0",
  'Content-Type: multipart/mixed; boundary="b1"',
  "",
  "--b1",
  'Content-Type: multipart/alternative; boundary="b2"',
  "",
  "--b2",
  "Content-Type: text/html; charset=utf-8",
  "",
  "<p>The <b>numbers</b> are in.</p>",
  "--b2--",
  "--b1",
  'Content-Type: text/csv; name="q3.csv"',
  'Content-Disposition: attachment; filename="q3.csv"',
  "Content-Transfer-Encoding: base64",
  "",
  Buffer.from("a,b\n1,2\n").toString("base64"),
  "--b1--",
  "",
].join("\r\n");

describe("email_parse", () => {
  it("reads headers, the text (from HTML when there is no plain part) and lists attachments", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "q3.eml"), EML);
    const run = await s.run(emailParseTool, { path: "q3.eml" });
    expect(run.error, String(run.llm)).toBeUndefined();
    expect(run.llm).toContain('from: "Ada Lovelace" <ada@example.com>');
    expect(run.llm).toContain('to: "Bob" <bob@example.com>, carol@example.com');
    expect(run.llm).toContain("subject: Report – Q3");
    expect(run.llm).toContain("date: 2026-11-03T10:00:00.000Z");
    expect(run.llm).toContain("attachments: q3.csv (text/csv, 8 B)");
    expect(run.llm).toContain("The **numbers** are in.");
    expect(run.meta).toMatchObject({ attachments: 1, subject: "Report – Q3" });
  });

  it("refuses a binary file, text that is not a message, and a path outside", async () => {
    const s = await session();
    await writeFile(path.join(s.root, "x.eml"), Buffer.from([0x50, 0, 1, 2]));
    expect((await s.run(emailParseTool, { path: "x.eml" })).error?.code).toBe("BINARY_FILE");
    await writeFile(path.join(s.root, "notes.eml"), "just some words\nwith no headers");
    expect((await s.run(emailParseTool, { path: "notes.eml" })).error?.code).toBe("INVALID_INPUT");
    expect((await s.run(emailParseTool, { path: "../ws-outside/x.eml" })).error?.code).toBe("OUTSIDE_WORKSPACE");
  });
});
