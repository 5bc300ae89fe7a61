import { z } from "zod";

// A person's time zone, as their browser names it (Intl.DateTimeFormat().resolvedOptions().timeZone):
// an IANA name such as "Europe/Berlin". Scheduled tasks are read and shown in it.

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const timeZoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, { message: "must be an IANA time zone such as Europe/Berlin" });
