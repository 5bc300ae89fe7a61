export type Customer = { id: string; name: string; mail: string; email?: string };
