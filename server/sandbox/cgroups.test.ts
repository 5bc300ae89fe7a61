import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSandboxCgroup, describeCgroups, SANDBOX_CPU_WEIGHT, setUpCgroups } from "./cgroups";
import { describeSandbox } from "./describe-sandbox";
import { sandboxCommand, type SandboxHost } from "./launcher";
import { DEFAULT_LIMITS } from "@/lib/sandbox-limits";

// cgroups v2 against a temporary directory standing in for /sys/fs/cgroup (this host is cgroup
// v1, and setting up a real tree would move the test process): what counts as delegated, the files the
// server writes, and the command that joins a sandbox's cgroup before anything else runs.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A cgroup v2 mount with the server in `/app.slice/tandem.service`, offering `controllers`. */
function fakeTree(controllers: string, options: { unified?: boolean } = {}) {
  const root = mkdtempSync(path.join(tmpdir(), "tandem-cgroup-"));
  dirs.push(root);
  const own = path.join(root, "app.slice", "tandem.service");
  mkdirSync(own, { recursive: true });
  if (options.unified !== false)
    writeFileSync(path.join(root, "cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma misc\n");
  writeFileSync(path.join(own, "cgroup.controllers"), `${controllers}\n`);
  writeFileSync(path.join(own, "cgroup.procs"), "4242\n4243\n");
  writeFileSync(path.join(own, "cgroup.subtree_control"), "");
  const self = path.join(root, "self-cgroup");
  writeFileSync(self, "0::/app.slice/tandem.service\n");
  return { root, own, paths: { root, self, pid: 4242 } };
}

describe("cgroups v2", () => {
  it("uses a delegated tree: moves the server into a leaf and hands memory, pids and cpu to the sandboxes' parent", () => {
    const { own, paths } = fakeTree("cpu io memory pids");
    const support = setUpCgroups(paths);
    expect(support).toEqual({ kind: "v2", sandboxes: path.join(own, "tandem-sandboxes") });
    // Written one pid at a time, as the kernel takes them; the last one written is what the fake file holds.
    expect(readFileSync(path.join(own, "tandem-server", "cgroup.procs"), "utf8")).toBe("4243");
    expect(readFileSync(path.join(own, "cgroup.subtree_control"), "utf8")).toBe("+memory +pids +cpu");
    expect(readFileSync(path.join(own, "tandem-sandboxes", "cgroup.subtree_control"), "utf8")).toBe(
      "+memory +pids +cpu",
    );
  });

  it("writes each sandbox's memory.max, pids.max and cpu.weight, and removes its cgroup afterwards", () => {
    const { paths } = fakeTree("cpu memory pids");
    const support = setUpCgroups(paths);
    if (support.kind !== "v2") throw new Error(support.reason);
    const limits = { ...DEFAULT_LIMITS, memoryMiB: 512, processes: 128 };
    const cgroup = createSandboxCgroup(support.sandboxes, "one", limits);
    expect(readFileSync(path.join(cgroup.dir, "memory.max"), "utf8")).toBe(String(512 * 1024 * 1024));
    expect(readFileSync(path.join(cgroup.dir, "pids.max"), "utf8")).toBe("128");
    expect(readFileSync(path.join(cgroup.dir, "cpu.weight"), "utf8")).toBe(String(SANDBOX_CPU_WEIGHT));
    // A real cgroup directory holds only kernel files, which rmdir takes with it; here they are plain files.
    for (const file of ["memory.max", "pids.max", "cpu.weight"]) rmSync(path.join(cgroup.dir, file));
    cgroup.remove();
    expect(() => readFileSync(path.join(cgroup.dir, "pids.max"))).toThrow();
  });

  it("starts a sandboxed command by joining its cgroup first, then dropping to the project's identity", () => {
    const { paths } = fakeTree("cpu memory pids");
    const cgroups = setUpCgroups(paths);
    const host: SandboxHost = {
      mode: "bwrap",
      masks: [],
      perProjectUid: false,
      limits: DEFAULT_LIMITS,
      cgroups,
      bwrapPath: "/bin/true",
    };
    const command = sandboxCommand(host, { workspaceRoot: tmpdir(), command: ["/bin/echo", "hi"] });
    expect(command.file).toBe("/bin/sh");
    expect(command.args.slice(0, 2)).toEqual(["-c", 'echo $$ > "$0" && exec "$@"']);
    expect(command.args[2]).toMatch(/tandem-sandboxes\/[0-9a-f-]{36}\/cgroup\.procs$/);
    expect(command.args[3]).toBe("/usr/bin/prlimit");
    expect(command.uid).toBeUndefined();
    expect(typeof command.release).toBe("function");
  });

  it("says why no cgroup is used: v1 or hybrid, controllers not delegated, a tree it may not write", () => {
    expect(setUpCgroups(fakeTree("cpu memory pids", { unified: false }).paths)).toMatchObject({
      kind: "none",
      reason: expect.stringMatching(/no cgroup v2 hierarchy/),
    });
    expect(setUpCgroups(fakeTree("cpu io").paths)).toMatchObject({
      kind: "none",
      reason: expect.stringMatching(/memory, pids are not delegated/),
    });
    const { own, paths } = fakeTree("cpu memory pids");
    // A file where the server's leaf would go: mkdir fails as it would in a tree the server may not write.
    writeFileSync(path.join(own, "tandem-server"), "");
    expect(setUpCgroups(paths)).toMatchObject({
      kind: "none",
      reason: expect.stringMatching(/not writable by the server/),
    });
  });

  it("names what is in force in the start-up line", () => {
    const host: SandboxHost = {
      mode: "bwrap",
      masks: [],
      perProjectUid: true,
      limits: DEFAULT_LIMITS,
      cgroups: { kind: "v2", sandboxes: "/sys/fs/cgroup/x/tandem-sandboxes" },
    };
    expect(describeSandbox(host)).toMatch(
      /limits: rlimits \(.*\); cgroups v2 per sandbox \(memory\.max 4096 MiB, pids\.max 1024, cpu\.weight 50\)/,
    );
    expect(
      describeCgroups(
        { kind: "none", reason: "no cgroup v2 hierarchy at /sys/fs/cgroup (cgroup v1 or hybrid)" },
        DEFAULT_LIMITS,
      ),
    ).toBe("cgroups: not used (no cgroup v2 hierarchy at /sys/fs/cgroup (cgroup v1 or hybrid))");
  });
});
