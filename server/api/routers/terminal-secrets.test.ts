import { afterAll, beforeAll, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { createCallerFactory } from "@/server/api/trpc";
import { addMember } from "@/server/db/repositories/teams";
import { describeSandboxed } from "@/server/test/sandbox-guard";
import { createTestServices } from "@/server/test/services";

// A terminal gets the project's secrets and its opener's own; what it prints shows [secret NAME]
// to everyone who watches it, its opener included, and nobody else may type into it.

const createCaller = createCallerFactory(appRouter);
let env: Awaited<ReturnType<typeof createTestServices>>;
beforeAll(async () => {
  env = await createTestServices({ sandbox: "bwrap" });
});
afterAll(() => env?.dispose());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeSandboxed("secrets in terminals", () => {
  it("reach the shell by name, print redacted, and keep the terminal its opener's alone", async () => {
    const owner = await env.createUser();
    const teammate = await env.createUser();
    const as = (user: typeof owner) => createCaller(env.context(user));
    const project = await as(owner).project.create({ name: "Terminal secrets" });
    await addMember(env.services.db, project.teamId, teammate.id, "member");
    await as(owner).secret.projectSet({ projectId: project.id, name: "DB_URL", value: "postgres://u:pw-1234@db/x" });
    await as(owner).secret.set({ name: "MY_TOKEN", value: "mine-0123456789" });
    const info = await as(owner).terminal.create({ projectId: project.id, cols: 200, rows: 40 });
    const terminal = env.services.terminals.get(project.id, info.id)!;
    let output = "";
    terminal.attach({ output: (frame) => (output += frame.toString("utf8")), message: () => {}, close: () => {} });
    terminal.write(
      'echo "url=$DB_URL mine=$MY_TOKEN b64=$(printf %s "$MY_TOKEN" | base64)"; echo "own=$(cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c "^MY_TOKEN=")"; echo DONE-$?\r',
    );
    for (let waited = 0; !/DONE-\d/.test(output); waited += 20) {
      if (waited > 15_000) throw new Error(`no output: ${JSON.stringify(output.slice(-500))}`);
      await sleep(20);
    }
    expect(output).toContain("url=[secret DB_URL] mine=[secret MY_TOKEN] b64=[secret MY_TOKEN]");
    // Its own processes' environments hold the secret (what the teammate's check below must not find).
    expect(output).toMatch(/own=[1-9]/);
    expect(output).not.toContain("pw-1234");
    expect(output).not.toContain("mine-0123456789");
    expect(output).not.toContain(Buffer.from("mine-0123456789").toString("base64").slice(0, 12));

    // Input cannot be shared: the teammate's keys would drive a shell holding the owner's own secret.
    await expect(
      as(owner).terminal.shareInput({ projectId: project.id, terminalId: info.id, shared: true }),
    ).rejects.toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("MY_TOKEN") });
    expect(info.holdsOwnSecrets).toBe(true);
    const listed = await as(teammate).terminal.list({ projectId: project.id });
    expect(listed.find((t) => t.id === info.id)).toMatchObject({ canType: false, holdsOwnSecrets: true });

    // The teammate's own terminal has the project's secret but not the owner's.
    const theirs = await as(teammate).terminal.create({ projectId: project.id, cols: 200, rows: 40 });
    const other = env.services.terminals.get(project.id, theirs.id)!;
    let seen = "";
    other.attach({ output: (frame) => (seen += frame.toString("utf8")), message: () => {}, close: () => {} });
    // Nor can it reach the owner's processes: every launch has a pid namespace of its own.
    other.write(
      'echo "url=$DB_URL mine=${MY_TOKEN:-unset}"; echo "seen=$(cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c "^MY_TOKEN=")"; echo DONE-$?\r',
    );
    for (let waited = 0; !/DONE-\d/.test(seen); waited += 20) {
      if (waited > 15_000) throw new Error(`no output: ${JSON.stringify(seen.slice(-500))}`);
      await sleep(20);
    }
    expect(seen).toContain("url=[secret DB_URL] mine=unset");
    expect(seen).toContain("seen=0");
    expect(seen).not.toContain("mine-0123456789");
    expect(theirs.holdsOwnSecrets).toBe(false);
    await as(teammate).terminal.shareInput({ projectId: project.id, terminalId: theirs.id, shared: true });
  });
});
