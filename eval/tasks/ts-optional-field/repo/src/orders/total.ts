import type { Order } from "./order";

/** The order's net total in cents. */
export function netTotal(order: Order): number {
  return order.lines.reduce((sum, line) => sum + line.unitCents * line.quantity, 0);
}
