import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The dependency rules of docs/architecture.md, checked on package manifests and on the imports
// in every non-test source file, so a shortcut across a boundary fails the build.
const root = new URL('../../', import.meta.url).pathname;

/** Which of our packages each package may depend on at run time (tests may use more). */
const ALLOWED: Record<string, string[]> = {
  '@nexus/protocol': [],
  // Neutral infrastructure (token counting, token bucket, backoff): depends on nothing of ours,
  // so channels (through channel-kit), core, memory and the gateway can all share it.
  '@nexus/limits-kit': [],
  '@nexus/channel-kit': ['@nexus/protocol', '@nexus/limits-kit'],
  '@nexus/channel-websocket': ['@nexus/protocol', '@nexus/channel-kit'],
  '@nexus/channel-telegram': ['@nexus/protocol', '@nexus/channel-kit'],
  '@nexus/channel-discord': ['@nexus/protocol', '@nexus/channel-kit'],
  '@nexus/channel-whatsapp': ['@nexus/protocol', '@nexus/channel-kit'],
  '@nexus/core': ['@nexus/protocol', '@nexus/limits-kit'],
  '@nexus/memory': ['@nexus/protocol', '@nexus/limits-kit'],
  '@nexus/memory-qdrant': ['@nexus/protocol', '@nexus/memory'],
  '@nexus/embedder-transformers': ['@nexus/memory'],
  '@nexus/queue-bullmq': ['@nexus/protocol'],
  '@nexus/tools-mcp': ['@nexus/protocol', '@nexus/limits-kit'],
};

interface Workspace {
  name: string;
  dir: string;
  dependencies: string[];
}

async function workspaces(): Promise<Workspace[]> {
  const found: Workspace[] = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of await readdir(join(root, group), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(root, group, entry.name);
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
      };
      found.push({ name: manifest.name, dir, dependencies: Object.keys(manifest.dependencies ?? {}) });
    }
  }
  return found;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(dir, 'src'), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !/\.test\.tsx?$/.test(path) && !/\/(testing|test-support)\//.test(path));
}

function ourImports(source: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*\(?\s*['"](@nexus\/[a-z-]+)/g)].map((match) => match[1]!);
}

describe('dependency rules', () => {
  it('keeps every package within its allowed dependencies, in its manifest and its imports', async () => {
    const problems: string[] = [];
    for (const workspace of await workspaces()) {
      const allowed = ALLOWED[workspace.name];
      if (!allowed) continue; // apps and testkit may depend on anything of ours
      for (const dependency of workspace.dependencies.filter((name) => name.startsWith('@nexus/'))) {
        if (!allowed.includes(dependency))
          problems.push(`${workspace.name} package.json depends on ${dependency}`);
      }
      for (const file of await sourceFiles(workspace.dir)) {
        for (const imported of ourImports(await readFile(file, 'utf8'))) {
          if (imported !== workspace.name && !allowed.includes(imported)) {
            problems.push(`${relative(root, file)} imports ${imported}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('reads environment variables only in the gateway (and test tooling)', async () => {
    const offenders: string[] = [];
    for (const workspace of await workspaces()) {
      if (
        workspace.name === '@nexus/gateway' ||
        workspace.name === '@nexus/testkit' ||
        workspace.name === '@nexus/web'
      )
        continue;
      for (const file of await sourceFiles(workspace.dir)) {
        if (/process\.env/.test(await readFile(file, 'utf8'))) offenders.push(relative(root, file));
      }
    }
    expect(offenders).toEqual([]);
  });
});
