import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/architecture.md lists every package; a package added, renamed or removed without the
// list following fails here, so the page a newcomer reads first stays true.
const root = new URL('../../', import.meta.url).pathname;

async function directories(): Promise<string[]> {
  const found: string[] = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of await readdir(join(root, group), { withFileTypes: true })) {
      if (entry.isDirectory()) found.push(`${group}/${entry.name}`);
    }
  }
  return found.sort();
}

/** The first word of each line of the fenced block under "## Packages and their rules". */
function listedPackages(markdown: string): string[] {
  const section = markdown.split('## Packages and their rules')[1] ?? '';
  const block = section.split('```')[1] ?? '';
  return block
    .split('\n')
    .map((line) => /^((?:packages|apps)\/[a-z0-9-]+)\s/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort();
}

describe('docs/architecture.md', () => {
  it('lists exactly the packages and apps in the tree', async () => {
    const doc = await readFile(join(root, 'docs/architecture.md'), 'utf8');
    const listed = listedPackages(doc);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed).toEqual(await directories());
  });
});
