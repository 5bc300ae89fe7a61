import type { Customer } from "./customer";

export function fromRow(row: { id: string; name: string; email: string }): Customer {
  return { id: row.id, name: row.name, email: row.email };
}

export function hasMail(c: Customer): boolean {
  return c.email.includes("@");
}
