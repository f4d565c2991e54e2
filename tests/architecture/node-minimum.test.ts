import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compareVersions,
  MINIMUM_NODE_VERSION,
  nodeVersionProblem,
} from '../../apps/gateway/bin/require-node.mjs';
import { productionFiles, REPOSITORY_ROOT } from './production-files.ts';

// The Node.js minimum is stated once (require-node.mjs); everything a newcomer reads agrees with it.
// `.ci/run` proves it on real Node binaries (scripts/check-node-minimum.ts).
const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the Node.js minimum', () => {
  it('is what package.json engines claims', async () => {
    const manifest = JSON.parse(await read('package.json')) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(`>=${MINIMUM_NODE_VERSION}`);
  });

  it('is what the README states', async () => {
    expect(await read('README.md')).toContain(`Node.js ${MINIMUM_NODE_VERSION}`);
  });

  it('is met by the Node the Dockerfile builds on', async () => {
    const dockerfile = await read('Dockerfile');
    const version = /ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)/.exec(dockerfile)?.[1];
    expect(version, 'ARG NODE_IMAGE names a node:X.Y.Z image').toBeDefined();
    expect(compareVersions(version ?? '0.0.0', MINIMUM_NODE_VERSION)).toBeGreaterThanOrEqual(0);
  });

  it('runs before anything else in every entry point', async () => {
    for (const path of ['apps/gateway/bin/nexus.mjs']) {
      const source = await read(path);
      const staticImports = source.match(/^import .*$/gm) ?? [];
      expect(staticImports, `${path} imports only the check statically`).toEqual([
        "import { requireSupportedNode } from './require-node.mjs';",
      ]);
    }
    const scripts = (JSON.parse(await read('package.json')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['start', 'test'])
      expect(scripts[name]).toMatch(/^node apps\/gateway\/bin\/require-node\.mjs && /);
  });
});

// Node 22's node:sqlite binds positional values (`statement.run(a, b)`) to anonymous `?` only: a
// statement written with numbered parameters (`?1`, `?2`) fails there with "column index out of
// range", while Node 24 binds them. Repeat the value with a plain `?` instead.
const NUMBERED_PARAMETER = /[\s(,=]\?\d+\b/u;

describe('SQL that runs on the minimum', () => {
  it('finds a numbered parameter (the check itself)', () => {
    expect(NUMBERED_PARAMETER.test('WHERE channel = ?1 AND id = ?2')).toBe(true);
    expect(NUMBERED_PARAMETER.test('VALUES (?, ?, ?)')).toBe(false);
    expect(NUMBERED_PARAMETER.test('x = a ?? 1')).toBe(false);
  });

  it('has no numbered parameters in production code', () => {
    const found: string[] = [];
    for (const file of productionFiles()) {
      const lines = readFileSync(join(REPOSITORY_ROOT, file), 'utf8').split('\n');
      lines.forEach((line, index) => {
        const code = line.trimStart();
        if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return;
        if (NUMBERED_PARAMETER.test(line)) found.push(`${file}:${index + 1}: ${code}`);
      });
    }
    expect(found).toEqual([]);
  });
});

describe('nodeVersionProblem', () => {
  it('refuses versions below the minimum with both versions and the fix', () => {
    const problem = nodeVersionProblem('20.20.2', '/usr/bin/node');
    expect(problem).toContain('Node.js 22.18.0 or newer');
    expect(problem).toContain('/usr/bin/node is Node.js 20.20.2');
    expect(problem).toContain('Node.js 24 LTS');
    expect(nodeVersionProblem('22.17.1')).toBeDefined();
    expect(nodeVersionProblem('22.9.0')).toBeDefined();
  });

  it('accepts the minimum and anything newer', () => {
    for (const version of ['22.18.0', '22.23.3', '23.0.0', '24.11.1', '26.0.0'])
      expect(nodeVersionProblem(version)).toBeUndefined();
  });
});
