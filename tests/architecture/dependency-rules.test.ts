import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The dependency rules of docs/architecture.md, checked on package manifests and on the imports
// in every non-test source file, so a shortcut across a boundary fails the build.
const root = new URL('../../', import.meta.url).pathname;

/** Which of our packages each package may depend on at run time (tests may use more). */
const ALLOWED: Record<string, string[]> = {
  '@nexus/protocol': [],
  '@nexus/sqlite-kit': ['@nexus/protocol'],
  '@nexus/queue-kit': ['@nexus/protocol', '@nexus/limits-kit'],
  // Neutral infrastructure (token counting, token bucket, backoff): depends on nothing of ours,
  // so channels (through channel-kit), core, memory and the gateway can all share it.
  '@nexus/limits-kit': [],
  '@nexus/channel-kit': ['@nexus/protocol', '@nexus/limits-kit'],
  '@nexus/channel-websocket': ['@nexus/protocol', '@nexus/channel-kit'],
  '@nexus/channel-telegram': ['@nexus/protocol', '@nexus/channel-kit'],
  '@nexus/channel-discord': ['@nexus/protocol', '@nexus/channel-kit', '@nexus/sqlite-kit'],
  '@nexus/channel-whatsapp': ['@nexus/protocol', '@nexus/channel-kit', '@nexus/sqlite-kit'],
  '@nexus/core': ['@nexus/protocol', '@nexus/sqlite-kit', '@nexus/limits-kit'],
  '@nexus/memory': ['@nexus/protocol', '@nexus/sqlite-kit', '@nexus/limits-kit'],
  '@nexus/memory-qdrant': ['@nexus/protocol', '@nexus/memory'],
  '@nexus/embedder-transformers': ['@nexus/memory'],
  '@nexus/queue-sqlite': ['@nexus/protocol', '@nexus/queue-kit', '@nexus/sqlite-kit'],
  '@nexus/queue-bullmq': ['@nexus/protocol', '@nexus/queue-kit'],
  // The one documented exception to "adapters never depend on core": the remote agent is a
  // backend of core's Agent port, which lives in core (see docs/architecture.md).
  // queue-kit: the transport enqueues runs and waits out Redis outages like every queue producer.
  '@nexus/agent-redis': ['@nexus/protocol', '@nexus/core', '@nexus/queue-kit'],
  '@nexus/tools-mcp': ['@nexus/protocol', '@nexus/limits-kit'],
};

/** Packages that may depend on anything of ours: the composition root and test tooling. */
const UNRULED = ['@nexus/gateway', '@nexus/web', '@nexus/testkit'];

/** Adapters: one backend of a port each. Only the gateway (the composition root) imports them. */
const isAdapter = (name: string): boolean =>
  /^@nexus\/(channel-(?!kit$)|queue-(?!kit$)|agent-|memory-|embedder-|tools-)/.test(name);

/** Adapters allowed to depend on core, each with its reason in docs/architecture.md. */
const ADAPTERS_ON_CORE = ['@nexus/agent-redis'];

/** What protocol may export as a function: conversions and type guards of its own contracts. */
const PROTOCOL_FUNCTIONS = ['toNexusError', 'conversationRefOf', 'isPermanentJobError', 'describeMemoryAge'];

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
    .filter((path) => !/\.test\.tsx?$/.test(path) && !/\/testing\//.test(path));
}

function ourImports(source: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*\(?\s*['"](@nexus\/[a-z-]+)/g)].map((match) => match[1]!);
}

describe('dependency rules', () => {
  it('keeps every package within its allowed dependencies, in its manifest and its imports', async () => {
    const problems: string[] = [];
    for (const workspace of await workspaces()) {
      const allowed = ALLOWED[workspace.name];
      if (!allowed) continue; // UNRULED; the next test makes sure no other package lacks a rule
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

  it('has a rule for every package (a new package states what it may depend on)', async () => {
    const unruled = (await workspaces())
      .map((workspace) => workspace.name)
      .filter((name) => !ALLOWED[name] && !UNRULED.includes(name));
    expect(unruled).toEqual([]);
  });

  it('lets only the gateway depend on or import an adapter', async () => {
    const problems: string[] = [];
    for (const workspace of await workspaces()) {
      if (workspace.name === '@nexus/gateway') continue;
      for (const dependency of workspace.dependencies.filter(isAdapter)) {
        problems.push(`${workspace.name} package.json depends on ${dependency}`);
      }
      for (const file of await sourceFiles(workspace.dir)) {
        for (const imported of ourImports(await readFile(file, 'utf8'))) {
          if (imported !== workspace.name && isAdapter(imported))
            problems.push(`${relative(root, file)} imports ${imported}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps adapters and kits off core, but for the documented exceptions', async () => {
    const problems = (await workspaces())
      .filter((workspace) => isAdapter(workspace.name) || workspace.name.endsWith('-kit'))
      .filter((workspace) => !ADAPTERS_ON_CORE.includes(workspace.name))
      .filter((workspace) => workspace.dependencies.includes('@nexus/core'))
      .map((workspace) => workspace.name);
    expect(problems).toEqual([]);
  });

  it('keeps protocol to contracts: no implementation helpers among its exports', async () => {
    const protocol = (await workspaces()).find((workspace) => workspace.name === '@nexus/protocol')!;
    const problems: string[] = [];
    for (const file of await sourceFiles(protocol.dir)) {
      const source = await readFile(file, 'utf8');
      for (const [, name] of source.matchAll(/export\s+(?:async\s+)?function\*?\s+(\w+)/g)) {
        if (!PROTOCOL_FUNCTIONS.includes(name!))
          problems.push(`${relative(root, file)} exports function ${name}`);
      }
      for (const [, name] of source.matchAll(
        /export\s+const\s+(\w+)\s*(?::[^=]+)?=\s*(?:async\s*)?(?:\([^)]*\)|\w+)\s*=>/g,
      )) {
        problems.push(`${relative(root, file)} exports arrow function ${name}`);
      }
      for (const [, name, base] of source.matchAll(/export\s+class\s+(\w+)(?:\s+extends\s+(\w+))?/g)) {
        if (
          !name!.endsWith('Error') ||
          (base !== undefined && !base.endsWith('Error')) ||
          (base === undefined && name !== 'NexusError')
        )
          problems.push(
            `${relative(root, file)} exports class ${name} (only error classes belong in protocol)`,
          );
      }
    }
    expect(problems).toEqual([]);
  });

  it('opens SQLite and takes write transactions only through sqlite-kit', async () => {
    const problems: string[] = [];
    for (const workspace of await workspaces()) {
      if (workspace.name === '@nexus/sqlite-kit') continue;
      for (const file of await sourceFiles(workspace.dir)) {
        const source = await readFile(file, 'utf8');
        if (/BEGIN IMMEDIATE/.test(source))
          problems.push(`${relative(root, file)} begins its own transaction`);
        // The gateway's doctor reads store files read-only, without migrations or pragmas.
        if (/new DatabaseSync\(/.test(source) && !/readOnly: true/.test(source))
          problems.push(`${relative(root, file)} opens SQLite itself`);
      }
    }
    expect(problems).toEqual([]);
  });
});
