/** Where a CLI command writes; the CLI passes process streams, tests can pass collectors. */
export interface CommandOutput {
  out(text: string): void;
  error(text: string): void;
  /** Resolves once everything written reached the OS (the CLI exits right after). */
  flush?(): Promise<void>;
}

export const processOutput: CommandOutput = {
  out: (text) => process.stdout.write(text),
  error: (text) => process.stderr.write(text),
  // Writes to a pipe are asynchronous: without this, `process.exit` cuts `nexus doctor | less` short.
  flush: () =>
    Promise.all([
      new Promise<void>((resolve) => process.stdout.write('', () => resolve())),
      new Promise<void>((resolve) => process.stderr.write('', () => resolve())),
    ]).then(() => undefined),
};

/** Left-aligned columns, two spaces apart: readable in a terminal and easy to grep. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

export function minutesFrom(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
