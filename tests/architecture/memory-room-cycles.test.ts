import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './import-graph.ts';
import { productionFiles } from './production-files.ts';

/**
 * The folder a file lives in under `base`: its first folder there, or `.` for files at `base`
 * itself. Files outside `base` are left out.
 */
function roomOf(file: string, base: string): string | undefined {
  if (!file.startsWith(`${base}/`)) return undefined;
  const rest = file.slice(base.length + 1);
  return rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : '.';
}

/** The imports between the rooms of `base` (production files only), as a graph of folders. */
function roomGraph(files: string[], base: string): Map<string, string[]> {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of importGraph(files)) {
    const from = roomOf(file, base);
    if (from === undefined) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) {
      const to = roomOf(target, base);
      if (to !== undefined && to !== from) edges.add(to);
    }
  }
  return new Map([...graph].map(([room, edges]) => [room, [...edges].sort()]));
}

// docs/architecture.md ("Memory"): memory's rooms and core's memory folder each import one way.
const BASES = ['packages/memory/src', 'packages/core/src/memory'];

describe('memory rooms import one way', () => {
  it('finds a loop between two folders (the check itself)', () => {
    const base = 'packages/memory/src';
    const files = [`${base}/sqlite/store.ts`, `${base}/lexical/index.ts`, `${base}/index.ts`];
    const graph = new Map([
      [files[0]!, [files[1]!]],
      [files[1]!, [files[0]!]],
      [files[2]!, [files[0]!]],
    ]);
    const rooms = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      rooms.set(
        roomOf(file, base)!,
        targets.map((target) => roomOf(target, base)!),
      );
    }
    expect(importCycles(rooms)).toEqual([['lexical', 'sqlite']]);
  });

  for (const base of BASES) {
    it(`${base}: no two folders import each other, directly or round a circle`, () => {
      const graph = roomGraph(productionFiles(), base);
      expect(graph.size).toBeGreaterThan(4);
      expect(importCycles(graph)).toEqual([]);
    });
  }
});
