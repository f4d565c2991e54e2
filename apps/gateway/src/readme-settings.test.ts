import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { settingsTable } from './settings-table.ts';

describe('README settings table', () => {
  it('documents every setting exactly as the code defines it', async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    // Regenerate with `node scripts/print-settings-table.ts` after changing settings.ts.
    expect(readme).toContain(settingsTable());
  });
});
