/** Percentile by nearest rank over an unsorted sample (sorted copy); NaN for an empty sample. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Prints rows as an aligned text table. */
export function printTable(rows: [string, string | number][]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) process.stdout.write(`${label.padEnd(width)}  ${value}\n`);
}
