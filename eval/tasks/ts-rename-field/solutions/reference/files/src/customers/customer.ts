export type Customer = { id: string; name: string; email: string };
