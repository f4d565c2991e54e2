import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Memory } from '@nexus/memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// `nexus memory list|add|delete|export|import` as an operator runs them: the real CLI on a data
// directory, the fixtures a Mem0 export and an OpenClaw workspace as those tools write them.

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const directories: string[] = [];

async function dataDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'nexus-memory-admin-'));
  directories.push(directory);
  return directory;
}

function nexus(dataDir: string, args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, 'memory', ...args],
      { env: { PATH: process.env.PATH ?? '', NEXUS_DATA_DIR: dataDir }, timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

async function exported(dataDir: string): Promise<Memory[]> {
  const result = await nexus(dataDir, ['export']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Memory);
}

/** Export → import into a fresh store → export: the two exports must be the same, field for field. */
async function roundTrip(dataDir: string): Promise<Memory[]> {
  const first = await exported(dataDir);
  const file = join(dataDir, 'export.jsonl');
  expect((await nexus(dataDir, ['export', file])).code).toBe(0);
  const copy = await dataDirectory();
  const imported = await nexus(copy, ['import', '--format', 'jsonl', file]);
  expect(imported.stdout, imported.stderr).toContain(`Imported: ${first.length} new`);
  const second = await exported(copy);
  const byId = (memories: Memory[]) => [...memories].sort((a, b) => a.id.localeCompare(b.id));
  expect(byId(second)).toEqual(byId(first));
  return first;
}

beforeEach(() => {
  directories.length = 0;
});
afterEach(async () => {
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

describe('nexus memory (operator commands)', () => {
  it('imports a Mem0 export with its ids, dates and categories, idempotently, and round-trips it', async () => {
    const dataDir = await dataDirectory();
    const file = join(FIXTURES, 'mem0-export.json');
    const first = await nexus(dataDir, ['import', '--format', 'mem0', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('Imported: 3 new, 0 updated, 0 already there; 0 skipped.');
    const again = await nexus(dataDir, ['import', '--format', 'mem0', file]);
    expect(again.stdout).toContain('Imported: 0 new, 0 updated, 3 already there; 0 skipped.');

    const memories = await roundTrip(dataDir);
    expect(memories).toHaveLength(3);
    const peanuts = memories.find((memory) => memory.content === 'Is allergic to peanuts');
    expect(peanuts).toMatchObject({
      id: '3f6a1c2e-8b4d-4e7a-9c1f-2d5b8e9a0c11',
      userId: 'alice',
      scope: 'user',
      category: 'fact',
      source: 'inferred',
      createdAt: Date.parse('2025-02-11T08:15:42.118-08:00'),
      updatedAt: Date.parse('2025-02-11T08:15:42.118-08:00'),
      metadata: { source_app: 'chat', confidence: 0.92, imported_from: 'mem0', mem0_categories: 'health' },
    });
    expect(memories.find((memory) => memory.content.startsWith('Prefers vegetarian'))).toMatchObject({
      category: 'preference',
      createdAt: Date.parse('2025-03-04T19:02:10.550-08:00'),
      updatedAt: Date.parse('2025-06-20T07:41:03.004-07:00'),
      metadata: { mem0_agent_id: 'travel-assistant', mem0_categories: 'food,user_preferences' },
    });
    // No updated_at in Mem0: last updated when created.
    expect(memories.find((memory) => memory.content.startsWith('Works as a nurse'))).toMatchObject({
      createdAt: Date.parse('2025-04-18T12:00:00Z'),
      updatedAt: Date.parse('2025-04-18T12:00:00Z'),
      metadata: { tags: '["work","career"]', mem0_run_id: 'onboarding-2025-04-18' },
    });
  }, 60_000);

  it('imports an OpenClaw workspace: bullets and paragraphs, dated by their daily file', async () => {
    const dataDir = await dataDirectory();
    const workspace = join(FIXTURES, 'openclaw-workspace');
    const refused = await nexus(dataDir, ['import', '--format', 'openclaw', workspace]);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('--user');
    const result = await nexus(dataDir, ['import', '--format', 'openclaw', '--user', 'web:sam', workspace]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Imported: 9 new');
    const again = await nexus(dataDir, ['import', '--format', 'openclaw', '--user', 'web:sam', workspace]);
    expect(again.stdout).toContain('Imported: 0 new, 0 updated, 9 already there; 0 skipped.');

    const memories = await roundTrip(dataDir);
    const of = (content: string) => memories.find((memory) => memory.content === content);
    const longTerm = Math.floor((await stat(join(workspace, 'MEMORY.md'))).mtimeMs);
    expect(of('Has two cats, Miso and Tofu.')).toMatchObject({
      userId: 'web:sam',
      category: 'fact',
      createdAt: longTerm,
      updatedAt: longTerm,
      metadata: { imported_from: 'openclaw', openclaw_file: 'MEMORY.md', openclaw_section: 'About Sam' },
    });
    expect(of('Uses metric units; dislikes Fahrenheit.')).toMatchObject({ category: 'preference' });
    expect(
      of(
        'Moved the home server from a Raspberry Pi to a small Intel NUC in January; backups go to an external SSD every night.',
      ),
    ).toMatchObject({ metadata: { openclaw_section: 'Decisions', openclaw_line: 12 } });
    expect(of('Sam started learning Portuguese with a tutor on Tuesdays.')).toMatchObject({
      category: 'event',
      createdAt: Date.UTC(2026, 2, 2),
      updatedAt: Date.UTC(2026, 2, 2),
      metadata: { openclaw_file: 'memory/2026-03-02.md' },
    });
    expect(of('Renewed the passport.')).toMatchObject({ createdAt: Date.UTC(2026, 2, 9) });
    // Code blocks, front matter, headings and undated files are not memories.
    expect(memories.map((memory) => memory.content).join('\n')).not.toMatch(/rsync|telegram-dm|scratch/);
  }, 60_000);

  it('adds, lists and deletes global memories and a person’s, and refuses bad input', async () => {
    const dataDir = await dataDirectory();
    const global = await nexus(dataDir, ['add', '--global', 'The', 'assistant', 'is', 'called', 'Nexus']);
    expect(global.code, global.stderr).toBe(0);
    await nexus(dataDir, ['add', '--user', 'web:ada', '--category', 'preference', 'Likes tea']);
    await nexus(dataDir, ['add', '--user', 'web:bob', 'Plays chess']);

    const all = await nexus(dataDir, ['list']);
    expect(all.stdout).toMatch(
      /\(global\)\s+global\s+fact\s+user_explicit\s+\S+\s+The assistant is called Nexus/,
    );
    expect(all.stdout).toMatch(/web:ada\s+user\s+preference/);
    const onlyGlobal = await nexus(dataDir, ['list', '--global']);
    expect(onlyGlobal.stdout).not.toContain('Likes tea');
    expect(onlyGlobal.stdout).toContain('The assistant is called Nexus');
    const onlyAda = await nexus(dataDir, ['list', '--user', 'web:ada']);
    expect(onlyAda.stdout).toContain('Likes tea');
    expect(onlyAda.stdout).not.toContain('Plays chess');

    const [globalMemory] = (await exported(dataDir)).filter((memory) => memory.scope === 'global');
    expect(globalMemory?.userId).toBe('*');
    expect((await nexus(dataDir, ['delete', globalMemory!.id])).stdout).toContain('Deleted');
    expect((await nexus(dataDir, ['list', '--global'])).stdout).toBe('No memories.\n');
    expect((await nexus(dataDir, ['delete', globalMemory!.id])).code).toBe(1);

    expect((await nexus(dataDir, ['add', '--user', 'web:ada', '--category', 'mood', 'x'])).code).toBe(65);
    expect((await nexus(dataDir, ['add', 'no', 'person'])).code).toBe(64);
    const broken = join(dataDir, 'broken.jsonl');
    await writeFile(
      broken,
      '{"userId":"web:ada","content":"Good line","scope":"user","category":"fact","source":"inferred","metadata":{}}\nnot json\n',
    );
    const partial = await nexus(dataDir, ['import', broken]);
    expect(partial.code).toBe(65);
    expect(partial.stderr).toContain('skipped line 2: not valid JSON');
    expect(partial.stdout).toContain('Imported: 1 new');
    expect(await readFile(broken, 'utf8')).toContain('Good line');
  }, 60_000);
});
