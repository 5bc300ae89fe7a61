import type { Customer } from "./customer";

export function fromRow(row: { id: string; name: string; email: string }): Customer {
  return { id: row.id, name: row.name, mail: row.email };
}

export function hasMail(c: Customer): boolean {
  return c.mail.includes("@");
}
