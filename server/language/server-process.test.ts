import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ServerProcess } from "./server-process";
import { MessageBound, MessageBoundError } from "./message-bound";

// A language server's stdout is read by the server, and what the server runs is the workspace's
// code: the TypeScript server is the workspace's own node_modules/typescript when it has one,
// and any process of the project can write to a language server's stdout through /proc. So the
// reader is what an attacker writes to: a message that claims gigabytes, or headers that never
// end, must not be gathered in the server's memory until the whole server (every team's) runs out.

const dir = mkdtempSync(path.join(tmpdir(), "tandem-lsp-flood-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function flood(name: string, script: string) {
  const marker = path.join(dir, name);
  const server = new ServerProcess(
    {
      command: {
        file: "/bin/sh",
        args: ["-c", `${script}; echo done > ${marker}`],
        env: { PATH: "/usr/bin:/bin" },
        cwd: dir,
        workspace: dir,
      },
      initializationOptions: {},
    },
    () => {},
  );
  return { server, finished: () => existsSync(marker) };
}

describe("a language server that floods its stdout", () => {
  it.each([
    ["a message claiming 3 GB", `printf 'Content-Length: 1500000000\\r\\n\\r\\n'; head -c 150000000 /dev/zero`],
    ["headers that never end", `head -c 150000000 /dev/zero`],
  ])(
    "is stopped when it sends %s, long before it is read whole",
    async (name, script) => {
      const { server, finished } = flood(name.replace(/\W/g, "-"), script);
      const end = await server.done;
      expect(end.signal).toBe("SIGKILL");
      expect(finished()).toBe(false);
    },
    30_000,
  );

  it("is read as usual when its messages are ordinary", async () => {
    const messages: unknown[] = [];
    const body = JSON.stringify({
      jsonrpc: "2.0",
      method: "window/logMessage",
      params: { type: 3, message: "x".repeat(2_000_000) },
    });
    const file = path.join(dir, "messages");
    writeFileSync(file, `Content-Length: ${body.length}\r\n\r\n${body}`.repeat(2));
    const server = new ServerProcess(
      {
        command: { file: "/bin/cat", args: [file], env: {}, cwd: dir, workspace: dir },
        initializationOptions: {},
      },
      (message) => messages.push(message),
    );
    expect((await server.done).code).toBe(0);
    await expect.poll(() => messages.length).toBe(2);
  });
});

describe("MessageBound", () => {
  it("follows messages cut anywhere, and refuses only the one past the limit", async () => {
    const message = (body: string) => `Content-Type: x\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    const stream = Buffer.from(message('{"a":1}') + message("{}".repeat(50)));
    const bound = new MessageBound(100);
    const out: Buffer[] = [];
    bound.on("data", (chunk: Buffer) => out.push(chunk));
    for (let i = 0; i < stream.length; i++) bound.write(stream.subarray(i, i + 1));
    expect(Buffer.concat(out).equals(stream)).toBe(true);
    const failed = new Promise((resolve) => bound.once("error", resolve));
    bound.write(Buffer.from(message("x".repeat(101))));
    expect(await failed).toBeInstanceOf(MessageBoundError);
  });
});
