#!/usr/bin/env node
// Asks Tandem's agent for a piece of work from a script or CI, with a personal or team API token
// (scopes read and run), waits for the agent's turn to end, and prints its last message. With
// TANDEM_BRANCH the session works on a new branch of that name, in a worktree of its own (the
// project must be a git repository); without it, in the project's main tree.
//
//   TANDEM_URL=https://tandem.example.com TANDEM_TOKEN=tandem_… [TANDEM_BRANCH=ci/fix-123] \
//     node run-session.mjs <projectId> "<request>"
//
// Exit status: 0 when the turn finished, 1 when it failed or was interrupted, 2 on a usage error.
// tRPC over HTTP: a query is GET /api/trpc/<procedure>?input=<json>, a mutation is POST with a JSON
// body; both carry superjson's {"json": …} envelope. docs/api.md lists the procedures.
const [projectId, request] = process.argv.slice(2);
const base = process.env.TANDEM_URL;
const token = process.env.TANDEM_TOKEN;
const branch = process.env.TANDEM_BRANCH;
if (!projectId || !request || !base || !token) {
  console.error('usage: TANDEM_URL=… TANDEM_TOKEN=… node run-session.mjs <projectId> "<request>"');
  process.exit(2);
}

async function call(procedure, input, { mutation = false } = {}) {
  const url = new URL(`/api/trpc/${procedure}`, base);
  const body = JSON.stringify({ json: input });
  if (!mutation) url.searchParams.set("input", body);
  const response = await fetch(url, {
    method: mutation ? "POST" : "GET",
    headers: { authorization: `Bearer ${token}`, ...(mutation ? { "content-type": "application/json" } : {}) },
    body: mutation ? body : undefined,
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${procedure}: ${answer.error?.json?.message ?? response.status}`);
  return answer.result.data.json;
}

const title = request.slice(0, 80);
const session = branch
  ? await call("tree.startSession", { projectId, title, branch }, { mutation: true })
  : await call("session.create", { projectId, title }, { mutation: true });
const { seq } = await call("session.send", { sessionId: session.id, text: request }, { mutation: true });
console.error(
  `session "${session.title}" (${session.id}) started${branch ? ` on branch ${branch}` : ""} in ${new URL(`/p/${projectId}`, base)}`,
);
let told = false;
for (;;) {
  const reply = await call("session.reply", { sessionId: session.id });
  if (reply.status === "waiting_approval" && !told) console.error("the agent waits for an approval in Tandem");
  told = reply.status === "waiting_approval";
  if (reply.finishedSeq > seq && reply.status !== "running") {
    console.log(reply.text ?? "");
    process.exit(reply.status === "idle" ? 0 : 1);
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
}
