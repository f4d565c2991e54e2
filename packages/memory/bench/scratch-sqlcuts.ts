import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteMemoryStore } from '../src/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqlcuts-'));
const store = createSqliteMemoryStore({
  path: join(dir, 'm.sqlite'),
  vectors: { embedderId: 'x', dimensions: 384 },
});
const emb = new Float32Array(384).map(() => Math.random());
async function time(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 500; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < 5000; i++) await fn();
  console.log(name, (((performance.now() - t) / 5000) * 1000).toFixed(1), 'us');
}
await time('list global', () => store.list({ userId: '__global__', limit: 50, offset: 0 }));
await time('search global', () =>
  store.search({
    userId: '__global__',
    text: 'hello there world',
    contextText: '',
    embedding: emb,
    limit: 60,
  }),
);
await time('search user', () =>
  store.search({
    userId: 'u1',
    text: 'hello there world',
    contextText: '',
    embedding: emb,
    limit: 60,
    scopes: ['user'],
  }),
);
await time('search session', () =>
  store.search({
    userId: 'u1',
    text: 'hello there world',
    contextText: 'bench c1 t0',
    embedding: emb,
    limit: 60,
    sessionId: 'web:x',
  }),
);
await time('standing', () => store.standing({ userId: 'u1', limit: 30, order: () => 0 }));
