import type { Diagnostic } from "vscode-languageserver-protocol";
import { normalizeUri } from "./documents";

/**
 * The diagnostics a language server last published, per document, numbered in publication order
 * so a caller can wait for the ones that follow its own change (the edit tools' "new errors").
 */
export class DiagnosticsStore {
  private readonly byUri = new Map<string, { items: Diagnostic[]; seq: number }>();
  private readonly listeners = new Set<(uri: string) => void>();
  private lastSeq = 0;

  publish(rawUri: string, items: Diagnostic[]): void {
    const uri = normalizeUri(rawUri);
    this.byUri.set(uri, { items, seq: ++this.lastSeq });
    for (const listener of this.listeners) listener(uri);
  }

  of(uri: string): { items: Diagnostic[]; seq: number } | undefined {
    return this.byUri.get(normalizeUri(uri));
  }

  all(): Map<string, Diagnostic[]> {
    return new Map([...this.byUri].map(([uri, entry]) => [uri, entry.items]));
  }

  get seq(): number {
    return this.lastSeq;
  }

  /**
   * The diagnostics of `uri` once the server has published them after `afterSeq` and then stayed
   * quiet for `quietMs` (servers publish in steps: syntax first, then types); what is known at the
   * timeout otherwise.
   */
  waitFor(
    rawUri: string,
    afterSeq: number,
    { quietMs = 400, timeoutMs = 5_000 } = {},
  ): Promise<Diagnostic[] | undefined> {
    const uri = normalizeUri(rawUri);
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(quiet);
        clearTimeout(timeout);
        this.listeners.delete(listener);
        resolve(this.byUri.get(uri)?.items);
      };
      const listener = (published: string) => {
        if (published !== uri || (this.byUri.get(uri)?.seq ?? 0) <= afterSeq) return;
        clearTimeout(quiet);
        quiet = setTimeout(finish, quietMs);
      };
      const timeout = setTimeout(finish, timeoutMs);
      this.listeners.add(listener);
      listener(uri);
    });
  }
}
