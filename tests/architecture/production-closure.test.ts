import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// What the image installs is the gateway's production closure in pnpm-lock.yaml
// (`--prod --filter-prod '@nexus/gateway...'`). Walked here from the lockfile, so a dependency
// that drags dev tooling or the 450 MB model runtime back into production fails the build.
const root = new URL('../../', import.meta.url).pathname;

/**
 * Never shipped in the default install: dev and test tooling and the transformers add-on. (sharp
 * is shipped: core scales every image to what the model provider accepts before it goes further,
 * see packages/core/src/media/scale-image-for-model.ts.)
 */
const FORBIDDEN = [
  '@nexus/testkit',
  '@nexus/embedder-transformers',
  '@huggingface/transformers',
  'onnxruntime-node',
  'onnxruntime-web',
  'typescript',
  'vitest',
  'playwright-core',
  '@biomejs/biome',
  'vite',
];

interface Lockfile {
  importers: Record<string, { dependencies?: Record<string, { version: string }> }>;
  snapshots: Record<string, { dependencies?: Record<string, string> }>;
}

/** Every package name reachable through `dependencies` (optional peers are not installed unless present). */
function productionClosure(lock: Lockfile, importer: string): Set<string> {
  const names = new Set<string>();
  const seenImporters = new Set<string>();
  const seenSnapshots = new Set<string>();
  const visitSnapshot = (key: string) => {
    if (seenSnapshots.has(key)) return;
    seenSnapshots.add(key);
    for (const [name, version] of Object.entries(lock.snapshots[key]?.dependencies ?? {})) {
      names.add(name);
      visitSnapshot(`${name}@${version}`);
    }
  };
  const visitImporter = (path: string) => {
    if (seenImporters.has(path)) return;
    seenImporters.add(path);
    for (const [name, { version }] of Object.entries(lock.importers[path]?.dependencies ?? {})) {
      names.add(name);
      if (version.startsWith('link:'))
        visitImporter(new URL(version.slice(5), `file:///${path}/`).pathname.slice(1));
      else visitSnapshot(`${name}@${version}`);
    }
  };
  visitImporter(importer);
  return names;
}

describe('production closure', () => {
  it('of the gateway holds no dev or test tooling and not the transformers add-on', async () => {
    const lock = parse(await readFile(`${root}pnpm-lock.yaml`, 'utf8')) as Lockfile;
    const closure = productionClosure(lock, 'apps/gateway');
    // The walk itself reaches through workspace links into third-party packages.
    expect(closure).toContain('@nexus/memory');
    expect(closure).toContain('grammy');
    expect(closure).toContain('@qdrant/js-client-rest');
    expect(FORBIDDEN.filter((name) => closure.has(name))).toEqual([]);
  });

  it('of the add-on holds the model runtime, installed only on demand', async () => {
    const lock = parse(await readFile(`${root}pnpm-lock.yaml`, 'utf8')) as Lockfile;
    expect(productionClosure(lock, 'packages/embedder-transformers')).toContain('onnxruntime-node');
  });
});
