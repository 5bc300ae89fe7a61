import type { Order } from "./order";
import { netTotal } from "./total";

/** The lines of the invoice text. */
export function invoiceLines(order: Order): string[] {
  const lines = order.lines.map((l) => `${l.quantity} x ${l.sku}: ${(l.unitCents * l.quantity / 100).toFixed(2)}`);
  lines.push(`Total: ${(netTotal(order) / 100).toFixed(2)}`);
  return lines;
}
