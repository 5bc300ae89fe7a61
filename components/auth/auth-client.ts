"use client";

import { createAuthClient } from "better-auth/react";

// Same origin as the page: better-auth is mounted at /api/auth on the Tandem server.
export const authClient = createAuthClient({
  baseURL: typeof window === "undefined" ? "http://localhost" : window.location.origin,
});

type AuthError = { status?: number; message?: string; code?: string } | null | undefined;

/** A message a person can act on, for a failed sign-in or sign-up. */
export function authErrorMessage(error: AuthError, action: "sign-in" | "sign-up"): string {
  if (!error) return "Something went wrong. Try again.";
  if (error.status === 429) return "Too many attempts. Wait a minute, then try again.";
  if (action === "sign-in" && (error.status === 401 || error.code === "INVALID_EMAIL_OR_PASSWORD")) {
    return "Wrong email or password.";
  }
  if (action === "sign-up" && error.status === 403) {
    // Invitation problems (used, expired, other email) keep the server's own words.
    const closed = !error.message || error.message.startsWith("Sign-up on this Tandem is by invitation");
    return closed ? "Sign-up is by invitation; ask an admin for an invitation link." : error.message!;
  }
  if (error.code === "USER_ALREADY_EXISTS" || error.code === "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL") {
    return "An account with this email already exists. Sign in instead.";
  }
  return error.message || "Something went wrong. Try again.";
}
