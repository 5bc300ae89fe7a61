type TrpcLikeError = {
  message?: string;
  data?: {
    code?: string;
    gitError?: string | null;
    zodError?: { formErrors?: string[]; fieldErrors?: Record<string, string[] | undefined> } | null;
  };
};

/** The message of a tRPC (or any) error, for showing to a person; input errors give their first reason. */
export function errorMessage(error: unknown): string {
  const zod = (error as TrpcLikeError | null)?.data?.zodError;
  if (zod) {
    const first = [...(zod.formErrors ?? []), ...Object.values(zod.fieldErrors ?? {}).flat()].find(Boolean);
    if (first) return first;
  }
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong. Try again.";
}

/** The tRPC error code (NOT_FOUND, CONFLICT, ...) of an error, if it is one. */
export function errorCode(error: unknown): string | undefined {
  return (error as TrpcLikeError | null)?.data?.code;
}

/** Which git failure an error was (AUTH_FAILED, HOST_NOT_ALLOWED, ...), when git's. */
export function gitErrorCode(error: unknown): string | undefined {
  return (error as TrpcLikeError | null)?.data?.gitError ?? undefined;
}
