import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LAZILY_LOADED_MODULES } from './lazily-loaded-modules.ts';

const SOURCE = dirname(fileURLToPath(import.meta.url));

/** `await import('x')` with a literal specifier in the gateway's non-test sources (TypeScript and the plain-JavaScript first files of threads), as src-relative names. */
function dynamicImports(): Set<string> {
  const found = new Set<string>();
  const files = readdirSync(SOURCE, { recursive: true, withFileTypes: true }).filter(
    (entry) =>
      entry.isFile() &&
      (entry.name.endsWith('.ts') || entry.name.endsWith('.mjs')) &&
      !entry.name.endsWith('.test.ts') &&
      !join(entry.parentPath, entry.name).includes(`${SOURCE}/testing/`),
  );
  for (const file of files) {
    const path = join(file.parentPath, file.name);
    for (const match of readFileSync(path, 'utf8').matchAll(/await import\('([^']+)'\)/g)) {
      const specifier = match[1]!;
      found.add(
        specifier.startsWith('.') ? `./${relative(SOURCE, join(dirname(path), specifier))}` : specifier,
      );
    }
  }
  return found;
}

describe('LAZILY_LOADED_MODULES', () => {
  it('names every module the gateway imports dynamically, and nothing else', () => {
    const found = dynamicImports();
    expect(found.size).toBeGreaterThan(10);
    expect([...found].sort()).toEqual([...LAZILY_LOADED_MODULES].sort());
  });
});
