import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { settingsTable } from './settings-table.ts';

/** Markdown tables may be re-aligned by the formatter; compare cell contents, not padding. */
function normaliseTable(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      line
        .trim()
        .replace(/\s*\|\s*/g, '|')
        .replace(/-{3,}/g, '---'),
    )
    .join('\n');
}

describe('README settings table', () => {
  it('documents every setting exactly as the code defines it', async () => {
    const readme = await readFile(new URL('../../../../README.md', import.meta.url), 'utf8');
    // Regenerate with `node scripts/print-settings-table.ts` after changing a setting (config/*-settings.ts).
    expect(normaliseTable(readme)).toContain(normaliseTable(settingsTable()));
  });
});
