import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';
import { describeMemoryStoreContract } from './testing/memory-store-contract.ts';

describeMemoryStoreContract({
  name: 'embedded SQLite (node:sqlite + FTS5 + sqlite-vec)',
  createLocation: () => join(mkdtempSync(join(tmpdir(), 'nexus-memory-')), 'memory.sqlite'),
  open: async ({ location, vectors }) => createSqliteMemoryStore({ path: location, vectors }),
  cleanup: async (location) => rmSync(join(location, '..'), { recursive: true, force: true }),
});
