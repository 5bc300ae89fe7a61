import type { Order } from "./order";

/** The order's net total in cents, after its discount. */
export function netTotal(order: Order): number {
  const gross = order.lines.reduce((sum, line) => sum + line.unitCents * line.quantity, 0);
  return Math.round(gross * (1 - (order.discountPercent ?? 0) / 100));
}
