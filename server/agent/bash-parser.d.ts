// Types for the parts of @ericcornelissen/bash-parser's AST that the command guard reads (the
// package ships none). Every node has a `type`; the walker reads the rest generically.
declare module "@ericcornelissen/bash-parser" {
  export type BashWord = { type: string; text: string; expansion?: Array<{ type: string; commandAST?: BashNode }> };
  export type BashNode = { type: string; [key: string]: unknown };
  export default function parse(source: string, options?: { mode?: "bash" | "posix" }): BashNode;
}
