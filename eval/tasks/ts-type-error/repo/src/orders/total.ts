import type { Order } from "./order";
import { findRate } from "./tax-rates";

/** The order's total in cents, tax included (the rate of the order's country). */
export function orderTotal(order: Order): number {
  const net = order.lines.reduce((sum, line) => sum + line.unitCents * line.quantity, 0);
  const rate = findRate(order.country);
  return Math.round(net * (1 + rate.percent / 100));
}
