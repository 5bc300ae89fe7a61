import type { Customer } from "./customer";

export function recipient(c: Customer): string {
  return `${c.name} <${c.mail}>`;
}
