// Errors of the agent runtime that a caller can act on; the routers map `code` to a TRPCError.
export class AgentRuntimeError extends Error {
  constructor(
    readonly code: "NOT_FOUND" | "CONFLICT" | "BAD_REQUEST" | "PRECONDITION_FAILED" | "BAD_GATEWAY",
    message: string,
  ) {
    super(message);
  }
}
