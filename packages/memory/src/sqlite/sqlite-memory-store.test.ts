import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMemoryStoreContract } from '../testing/memory-store-contract.ts';
import { createSqliteMemoryStore } from './sqlite-memory-store.ts';

describeMemoryStoreContract({
  name: 'embedded SQLite (node:sqlite + FTS5 + sqlite-vec)',
  createLocation: () => join(mkdtempSync(join(tmpdir(), 'nexus-memory-')), 'memory.sqlite'),
  open: async ({ location, vectors }) => createSqliteMemoryStore({ path: location, vectors }),
  cleanup: async (location) => rmSync(join(location, '..'), { recursive: true, force: true }),
});

// The same contract with the quantised pre-filter on for every person, however small, so each
// search, update, delete and reset above also runs through the in-process index.
describeMemoryStoreContract({
  name: 'embedded SQLite with the quantised vector cache',
  createLocation: () => join(mkdtempSync(join(tmpdir(), 'nexus-memory-')), 'memory.sqlite'),
  open: async ({ location, vectors }) =>
    createSqliteMemoryStore({
      path: location,
      vectors,
      vectorCache: { minVectors: 1, buildInBackground: false },
    }),
  cleanup: async (location) => rmSync(join(location, '..'), { recursive: true, force: true }),
});
