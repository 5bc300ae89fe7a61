// The layer table of docs/architecture.md, as code. scripts/layers.test.ts runs it in `npm test`;
// `npx depcruise server lib components app` prints the same violations (known ones included).
//
// A room may import only itself, lib/, npm packages and the rooms it lists. Test code
// (*.test.ts, server/test/) may import anything but is never imported by production code.

const TEST = "(\\.test\\.tsx?$|^server/test/|^e2e/)";

/** Rooms of server/, lowest first. `may` lists what a room imports besides itself and lib/. */
const SERVER_ROOMS = [
  {
    room: "server/db",
    may: ["generated"],
    why: "the floor: the Prisma client (generated/) and the repositories import nothing of the server above them",
  },
  { room: "server/bus", may: [], why: "event fan-out interfaces, below everything that publishes or subscribes" },
  { room: "server/sandbox", may: [], why: "the launcher, egress proxy and limits every project process goes through" },
  {
    room: "server/secrets",
    may: [],
    why: "the redactor: how a secret's value shows up in text, applied where output is recorded",
  },
  { room: "server/auth", may: ["server/db", "server/bus"], why: "accounts and login sessions sit on the repositories" },
  {
    room: "server/workspace",
    may: ["server/sandbox", "server/secrets"],
    why: "a project's folder; it runs commands only through the sandbox",
  },
  { room: "server/git", may: ["server/sandbox"], why: "git always runs through the sandbox" },
  { room: "server/terminal", may: ["server/sandbox", "server/secrets"], why: "terminals run through the sandbox" },
  {
    room: "server/environment",
    may: ["server/sandbox", "server/secrets"],
    why: "projects' toolchains (a server-side cache) and setup scripts, run through the sandbox",
  },
  {
    room: "server/preview",
    may: [],
    why: "the preview proxy and its access, handed what it connects to and who is a member",
  },
  {
    room: "server/language",
    may: ["server/workspace", "server/sandbox", "server/terminal"],
    why: "language servers read the workspace and run in the sandbox",
  },
  {
    room: "server/live-docs",
    may: ["server/workspace"],
    why: "files open live: shared Yjs documents that read and write through the workspace",
  },
  {
    room: "server/cluster",
    may: ["server/db", "server/bus", "server/auth", "server/workspace"],
    why: "leases, forwarding and the Postgres bus; the process entries in it are composition roots",
  },
  {
    room: "server/tools",
    may: ["server/language", "server/workspace", "server/git", "server/sandbox", "server/secrets"],
    why: "tools get storage, config and the network policy through their context, never from db, env, api or http",
  },
  {
    room: "server/agent",
    may: [
      "server/tools",
      "server/language",
      "server/workspace",
      "server/git",
      "server/sandbox",
      "server/secrets",
      "server/bus",
      "server/cluster",
    ],
    why: "the agent runs from a tRPC call, a job, a sub-agent or a test alike: no db, env, api or http",
  },
  {
    room: "server/telemetry",
    may: ["server/agent", "server/env"],
    why: "exporters of what the runtime reports (agent-metrics.ts); the runtime never sees them",
  },
  {
    room: "server/services",
    may: [
      "server/agent",
      "server/tools",
      "server/language",
      "server/live-docs",
      "server/git",
      "server/terminal",
      "server/environment",
      "server/preview",
      "server/workspace",
      "server/sandbox",
      "server/secrets",
      "server/cluster",
      "server/auth",
      "server/db",
      "server/bus",
      "server/env",
    ],
    why: "use cases that span rooms, called by routers and jobs; never the API or HTTP above them",
  },
  {
    room: "server/api",
    may: [
      "server/services",
      "server/agent",
      "server/tools",
      "server/language",
      "server/live-docs",
      "server/git",
      "server/terminal",
      "server/environment",
      "server/preview",
      "server/workspace",
      "server/sandbox",
      "server/secrets",
      "server/cluster",
      "server/auth",
      "server/db",
      "server/bus",
      "server/env",
    ],
    why: "tRPC routers: validate, authorize, call services; HTTP endpoints and the process entries sit above",
  },
  {
    room: "server/http",
    may: [
      "server/api",
      "server/services",
      "server/agent",
      "server/tools",
      "server/language",
      "server/live-docs",
      "server/git",
      "server/terminal",
      "server/environment",
      "server/preview",
      "server/workspace",
      "server/sandbox",
      "server/secrets",
      "server/cluster",
      "server/auth",
      "server/db",
      "server/bus",
      "server/env",
    ],
    why: "plain HTTP endpoints beside tRPC; only the process entries sit above",
  },
];

/** Composition roots: they build everything and may import any production code. */
const ENTRIES =
  "^server/(index\\.ts|start-server\\.ts|services\\.ts|compose-services\\.ts|eval/|cluster/(instance-main|workspace-runner-main|serve-api)\\.ts)";

/**
 * components/ in three floors. The ground floor (ui/ and the tRPC client) holds what every feature
 * uses and imports no feature; features (explorer/, search/, git/, editor/, terminal/, chat/,
 * review/, agent/, share/, auth/, team/, settings/, projects/) import the ground floor and each other
 * one way only; the shell (ide/: the IDE, its registries of panels, the share page) composes them.
 */
const GROUND_FLOOR = "^components/(ui/|trpc-provider\\.tsx$)";
const SHELL = "^components/ide/";

const componentRules = [
  {
    name: "components-ground-floor",
    severity: "error",
    comment:
      "components/ui/ and components/trpc-provider.tsx are the ground floor every feature stands on: they import no feature folder and not the shell (move the shared piece down instead)",
    from: { path: GROUND_FLOOR, pathNot: [TEST] },
    to: { path: "^components/", pathNot: [GROUND_FLOOR] },
  },
  {
    name: "components-features-below-the-shell",
    severity: "error",
    comment:
      "feature folders of components/ never import the shell (components/ide/): the shell composes them, and a panel is an entry in its registries (ide/side-views.tsx, bottom-panels.tsx, agent-tabs.tsx)",
    from: { path: "^components/", pathNot: [SHELL, TEST] },
    to: { path: SHELL },
  },
  {
    name: "components-folders-one-way",
    severity: "error",
    comment:
      "two folders of components/ never import each other, directly or round a circle of folders: decide which one sits lower and move what the lower one needs into it (or into ui/)",
    scope: "folder",
    from: { path: "^components/" },
    to: { path: "^components/", circular: true },
  },
];

const escapeDots = (s) => s.replace(/[.]/g, "\\.");
const roomPath = (room) => (room.endsWith(".ts") ? `^${escapeDots(room)}$` : `^${escapeDots(room)}/`);
const anyOf = (rooms) => `(${rooms.map(roomPath).join("|")})`;

const serverRules = SERVER_ROOMS.map(({ room, may, why }) => ({
  name: `${room.replace("server/", "")}-room`,
  severity: "error",
  comment: `${room} may import only ${["lib/", ...may].join(", ")}: ${why}`,
  from: { path: roomPath(room), pathNot: [TEST, ENTRIES] },
  to: { path: "^(server|components|app|scripts|bench|generated)/", pathNot: [anyOf([room, ...may])] },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "import circles make load order matter and rooms impossible to move: move the shared piece into a file both import",
      from: {},
      to: { circular: true },
    },
    {
      name: "production-imports-no-test-code",
      severity: "error",
      comment: "production code never imports tests, server/test/ or e2e/: move what it needs out of the test support",
      from: { pathNot: [TEST, "^(bench|scripts)/"] },
      to: { path: TEST },
    },
    {
      name: "lib-is-isomorphic",
      severity: "error",
      comment:
        "lib/ is shared by browser and server: it imports only lib/ and npm packages, never server/, components/, app/ or node: modules",
      from: { path: "^lib/", pathNot: [TEST] },
      to: { path: "^(server|components|app|scripts|bench|e2e|generated)/" },
    },
    {
      name: "browser-code-has-no-node",
      severity: "error",
      comment: "lib/, components/ and app/ run in the browser: no node: modules",
      from: { path: "^(lib|components|app)/", pathNot: [TEST] },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "components-use-lib-not-server",
      severity: "error",
      comment:
        "components/ imports components/ and lib/ only; the one thing it takes from the server is the AppRouter type (import type from server/api/root.ts) that types the tRPC client",
      from: { path: "^components/", pathNot: [TEST] },
      to: { path: "^(server|app|scripts|bench|generated)/", pathNot: ["^server/api/root\\.ts$"] },
    },
    {
      name: "components-take-only-the-router-type",
      severity: "error",
      comment: "components/ may import server/api/root.ts only with `import type` (the AppRouter type), never its code",
      from: { path: "^components/", pathNot: [TEST] },
      to: { path: "^server/api/root\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "app-composes-components",
      severity: "error",
      comment: "app/ routes compose components/ and lib/; they never import server/",
      from: { path: "^app/", pathNot: [TEST] },
      to: { path: "^(server|scripts|bench|generated)/" },
    },
    {
      name: "only-db-touches-prisma",
      severity: "error",
      comment: "only server/db touches Prisma (the generated client and @prisma/*): other rooms call a repository",
      from: { pathNot: ["^server/db/", TEST] },
      to: { path: "(^generated/|^node_modules/@prisma/)" },
    },
    {
      name: "env-reads-only-lib",
      severity: "error",
      comment:
        "server/env/ (the one room reading process.env, in load-config.ts) imports only lib/: what it parses lives there",
      from: { path: "^server/env/" },
      to: { path: "^(server|components|app|scripts|bench|generated)/", pathNot: ["^server/env/"] },
    },
    ...serverRules,
    ...componentRules,
  ],
  options: {
    doNotFollow: { path: "^(node_modules|generated)/" },
    exclude: { path: "^\\.next/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
