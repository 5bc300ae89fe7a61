import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useToolSessions } from "@/server/test/tool-session";
import { testSandbox } from "@/server/test/sandbox";
import { createRedactor } from "@/server/secrets/redactor";
import { DiscoveryError, discoverTools } from "./discovered-tools";

// A discovery script and a call script in a temporary workspace, run for real (sandbox "none").

const session = useToolSessions();
let root: string;
const sandbox = testSandbox("none");

const DISCOVER = `#!/bin/bash
cat <<'JSON'
[
  {"name": "greet", "description": "Greets someone.", "parameters": {"type": "OBJECT", "properties": {"who": {"type": "STRING"}}, "required": ["who"]}},
  {"functionDeclarations": [{"name": "fail_loudly", "description": "Always fails."}]}
]
JSON
`;
const CALL = `#!/bin/bash
input=$(cat)
case "$1" in
  greet) echo "Hello, $(echo "$input" | sed -E 's/.*"who":"([^"]*)".*/\\1/')!" ;;
  fail_loudly) echo "partial output"; echo "it broke" >&2; exit 3 ;;
  *) echo "unknown tool $1" >&2; exit 1 ;;
esac
`;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "tandem-discovery-")));
  await fs.mkdir(path.join(root, "tools"));
  await fs.writeFile(path.join(root, "tools/discover.sh"), DISCOVER, { mode: 0o755 });
  await fs.writeFile(path.join(root, "tools/call.sh"), CALL, { mode: 0o755 });
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

const settings = { discoveryCommand: "./tools/discover.sh", callCommand: "./tools/call.sh" };

describe("project tool discovery", () => {
  it("turns each printed declaration into a tool that says it was discovered and how it runs", async () => {
    const tools = await discoverTools({ workspaceRoot: root, sandbox, settings });
    expect(tools.map((t) => t.name)).toEqual(["greet", "fail_loudly"]);
    const greet = tools[0]!;
    expect(greet.description).toContain("Greets someone.");
    expect(greet.description).toContain("discovered from the project by running `./tools/discover.sh`");
    expect(greet.description).toContain("runs `./tools/call.sh greet`");
    expect(greet.inputSchema).toEqual({ type: "object", properties: { who: { type: "string" } }, required: ["who"] });
  });

  it("calls `toolCallCommand <name>` with the arguments as JSON on stdin; success is stdout", async () => {
    const [greet] = await discoverTools({ workspaceRoot: root, sandbox, settings });
    const run = await (await session()).run(greet!, { who: "Ada" });
    expect(run.llm).toBe("Hello, Ada!\n");
    expect(run.error).toBeUndefined();
  });

  it("a failed call returns Stdout, Stderr, Error, Exit Code and Signal", async () => {
    const [, failing] = await discoverTools({ workspaceRoot: root, sandbox, settings });
    const run = await (await session()).run(failing!, {});
    expect(run.llm).toBe("Stdout: partial output\nStderr: it broke\nError: (none)\nExit Code: 3\nSignal: (none)");
    expect(run.error?.code).toBe("INTERNAL");
  });

  it("explains a discovery command that is missing, fails or prints something else", async () => {
    const attempt = (discoveryCommand: string) =>
      discoverTools({ workspaceRoot: root, sandbox, settings: { ...settings, discoveryCommand } });
    await expect(attempt("./tools/nope.sh")).rejects.toThrow(/command not found/);
    await expect(attempt("echo not json")).rejects.toThrow(/not JSON/);
    await expect(attempt("echo '{}'")).rejects.toThrow(DiscoveryError);
    await expect(attempt('echo \'[{"name": "9bad"}]\'')).rejects.toThrow(/No usable declaration/);
  });

  it("runs with the project's secrets, and what it prints shows their names, never their values", async () => {
    const value = "deploy-key-0123456789";
    const secrets = { env: { DEPLOY_KEY: value }, redactor: createRedactor([{ name: "DEPLOY_KEY", value }]) };
    await fs.writeFile(
      path.join(root, "tools/secret-discover.sh"),
      `#!/bin/bash\nprintf '[{"name":"deploy","description":"Deploys with %s."}]' "$DEPLOY_KEY"\n`,
      { mode: 0o755 },
    );
    await fs.writeFile(path.join(root, "tools/secret-call.sh"), '#!/bin/bash\necho "key=$DEPLOY_KEY"\n', {
      mode: 0o755,
    });
    const [deploy] = await discoverTools({
      workspaceRoot: root,
      sandbox,
      settings: { discoveryCommand: "./tools/secret-discover.sh", callCommand: "./tools/secret-call.sh" },
      secrets,
    });
    expect(deploy!.description).toContain("Deploys with [secret DEPLOY_KEY].");
    const run = await (await session()).run(deploy!, {});
    expect(run.llm).toBe("key=[secret DEPLOY_KEY]\n");
  });
});
