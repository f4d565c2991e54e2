import { describe, expect, it } from 'vitest';
import { folderGraph } from './folder-graph.ts';
import { importCycles, importGraph } from './import-graph.ts';
import { productionFiles } from './production-files.ts';

describe('folder import circles', () => {
  it('folds files onto folders, a folder and its subfolders being one unit (the check itself)', () => {
    const files = new Map([
      ['p/src/a/one.ts', ['p/src/b/two.ts', 'p/src/a/inner/three.ts']],
      ['p/src/b/two.ts', ['p/src/a/four.ts', 'p/src/root.ts']],
      ['p/src/a/inner/three.ts', ['p/src/a/four.ts']],
      ['p/src/a/four.ts', []],
      ['p/src/root.ts', ['p/src/a/one.ts']],
    ]);
    const graph = folderGraph(files);
    expect(graph.get('p/src/a')).toEqual(['p/src/b']);
    expect(graph.get('p/src/b')).toEqual(['p/src/a']);
    expect(graph.get('p/src/a/inner')).toEqual([]);
    expect(importCycles(graph)).toEqual([['p/src/a', 'p/src/b']]);
  });

  it('no folder imports itself back through other folders: a shared part lives where both can import it', () => {
    const graph = folderGraph(importGraph(productionFiles()));
    expect(graph.size).toBeGreaterThan(50);
    expect(importCycles(graph)).toEqual([]);
  }, 60_000);
});
