import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './import-graph.ts';
import { productionFiles } from './production-files.ts';

describe('import circles', () => {
  it('finds a circle when there is one (the check itself)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('no production file imports itself back through others: shared types live in a file both import', () => {
    const files = productionFiles();
    expect(files.length).toBeGreaterThan(300);
    expect(importCycles(importGraph(files))).toEqual([]);
  });
});
