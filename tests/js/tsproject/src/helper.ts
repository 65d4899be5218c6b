// A helper module: main.ts requires it, and it calls total() as soon as it loads.

export interface Totals {
  count: number;
  sum: number;
}

export function total(values: number[]): Totals {
  let sum = 0;
  for (const value of values) {
    sum += value; // HELPER_SUM
  }
  return { count: values.length, sum };
}

export const loaded: Totals = total([1, 2, 3]); // HELPER_TOP
