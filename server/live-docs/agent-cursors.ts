import * as encoding from "lib0/encoding";
import * as Y from "yjs";
import { type Awareness, applyAwarenessUpdate } from "y-protocols/awareness";

/** How long the agent's cursor stays where it last wrote. */
export const AGENT_CURSOR_MS = 5_000;
/** The agent's colour in documents, apart from people's (lib/live-doc-protocol.ts colorOf). */
export const AGENT_COLOR = "#12a594";

/** Who wrote a change the agent made: its session, named as people see its cursor. */
export type AgentAuthor = { sessionId: string; name: string };

/**
 * The agent sessions' cursors in one live document: each an awareness entry of its own (a client
 * id no editor has), seen by every editor like a person's, over what it changed, gone again after
 * AGENT_CURSOR_MS. Editors cannot set `agent` themselves: the socket rewrites their states.
 */
export class AgentCursors {
  private shown = new Map<string, { clientId: number; clock: number; fade?: NodeJS.Timeout }>();

  constructor(
    private readonly awareness: Awareness,
    private readonly text: Y.Text,
    /** The origin of the awareness changes (not an editor's socket). */
    private readonly origin: unknown,
  ) {}

  show(by: AgentAuthor, range: { start: number; end: number }) {
    let agent = this.shown.get(by.sessionId);
    if (!agent) this.shown.set(by.sessionId, (agent = { clientId: Math.floor(Math.random() * 0xffffffff), clock: 0 }));
    clearTimeout(agent.fade);
    const at = (index: number) => Y.relativePositionToJSON(Y.createRelativePositionFromTypeIndex(this.text, index));
    this.set(agent, {
      user: { name: by.name, color: AGENT_COLOR },
      agent: true,
      selection: { anchor: at(range.start), head: at(range.end) },
    });
    const current = agent;
    current.fade = setTimeout(() => {
      if (this.shown.get(by.sessionId) !== current) return;
      this.shown.delete(by.sessionId);
      this.set(current, null);
    }, AGENT_CURSOR_MS).unref();
  }

  destroy() {
    for (const agent of this.shown.values()) clearTimeout(agent.fade);
    this.shown.clear();
  }

  private set(agent: { clientId: number; clock: number }, state: object | null) {
    agent.clock += 1;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, 1);
    encoding.writeVarUint(encoder, agent.clientId);
    encoding.writeVarUint(encoder, agent.clock);
    encoding.writeVarString(encoder, JSON.stringify(state));
    applyAwarenessUpdate(this.awareness, encoding.toUint8Array(encoder), this.origin);
  }
}
