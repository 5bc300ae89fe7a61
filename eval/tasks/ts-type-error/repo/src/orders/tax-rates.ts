export type TaxRate = { country: string; percent: number };

const RATES: TaxRate[] = [
  { country: "DE", percent: 19 },
  { country: "FR", percent: 20 },
  { country: "NL", percent: 21 },
];

/** The rate of a country, or undefined when the shop does not sell there. */
export function findRate(country: string): TaxRate | undefined {
  return RATES.find((r) => r.country === country);
}
