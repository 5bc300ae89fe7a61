export type OrderLine = { sku: string; unitCents: number; quantity: number };
export type Order = { id: string; country: string; lines: OrderLine[]; discountPercent?: number };
