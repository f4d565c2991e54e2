/**
 * pnpm bench:recall — retrieval quality on a generated conversation data set (recall-dataset.ts):
 * the facts are ingested through the memory HTTP API (a server started in process on the embedded
 * SQLite store), every question is asked through `/search`, and recall@5 and @10 of the known
 * evidence are printed for Nexus and for a plain BM25 over the same memories, computed in the same
 * run. The last line is one JSON object.
 *
 * An embedder is used when NEXUS_BENCH_EMBEDDINGS_URL, _MODEL and _DIMENSIONS (and optionally
 * _API_KEY) name an OpenAI-compatible `/v1/embeddings` endpoint; otherwise search is lexical only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createMemoryClient,
  createOpenAICompatibleEmbedder,
  createSqliteMemoryStore,
  type Embedder,
  MemoryService,
  startMemoryHttpServer,
} from '../src/index.ts';
import { createPlainBm25 } from './plain-bm25.ts';
import { generateRecallDataset, recallAtK } from './recall-dataset.ts';

const DAY_MS = 86_400_000;
const API_KEY = 'bench-recall-key-0123456789';

function embedderFromEnvironment(): Embedder | undefined {
  const baseUrl = process.env.NEXUS_BENCH_EMBEDDINGS_URL;
  const model = process.env.NEXUS_BENCH_EMBEDDINGS_MODEL;
  const dimensions = Number(process.env.NEXUS_BENCH_EMBEDDINGS_DIMENSIONS);
  if (!baseUrl) return undefined;
  if (!model || !Number.isInteger(dimensions) || dimensions <= 0) {
    throw new Error(
      'NEXUS_BENCH_EMBEDDINGS_URL needs NEXUS_BENCH_EMBEDDINGS_MODEL and NEXUS_BENCH_EMBEDDINGS_DIMENSIONS',
    );
  }
  const apiKey = process.env.NEXUS_BENCH_EMBEDDINGS_API_KEY;
  return createOpenAICompatibleEmbedder({ baseUrl, model, dimensions, ...(apiKey ? { apiKey } : {}) });
}

async function main(): Promise<void> {
  const dataset = generateRecallDataset();
  const embedder = embedderFromEnvironment();
  const directory = mkdtempSync(join(tmpdir(), 'nexus-bench-recall-'));
  const start = Date.parse('2026-01-05T09:00:00Z');
  let clock = start;
  const store = createSqliteMemoryStore({
    path: join(directory, 'memory.db'),
    ...(embedder ? { vectors: { embedderId: embedder.id, dimensions: embedder.dimensions } } : {}),
  });
  const service = new MemoryService({ store, now: () => clock, ...(embedder ? { embedder } : {}) });
  const server = await startMemoryHttpServer({ service, apiKey: API_KEY });
  const client = createMemoryClient({ baseUrl: server.url, apiKey: API_KEY });
  try {
    // Sessions in date order, as they happened; each memory is dated by the service's clock.
    const ids = new Map<string, string>();
    const ordered = [...dataset.facts].sort((left, right) => left.day - right.day);
    for (const fact of ordered) {
      clock = start + fact.day * DAY_MS;
      const added = await client.add({
        userId: fact.userId,
        content: fact.content,
        category: fact.category,
        source: fact.source,
        sessionId: `${fact.userId}#${fact.session}`,
      });
      ids.set(fact.key, added.memory.id);
    }
    clock = start + (Math.max(...dataset.facts.map((fact) => fact.day)) + 2) * DAY_MS;

    const baselines = new Map<string, ReturnType<typeof createPlainBm25>>();
    for (const userId of new Set(dataset.facts.map((fact) => fact.userId))) {
      const memories = await client.list({ userId, limit: 1_000 });
      // Insertion order, so the baseline's ties go to the older memory as a plain index would.
      memories.sort((left, right) => left.createdAt - right.createdAt || (left.id < right.id ? -1 : 1));
      baselines.set(
        userId,
        createPlainBm25(memories.map((memory) => ({ id: memory.id, text: memory.content }))),
      );
    }

    const nexus: Array<{ evidence: string[]; ranked: string[] }> = [];
    const bm25: Array<{ evidence: string[]; ranked: string[] }> = [];
    for (const question of dataset.questions) {
      const evidence = question.evidence.map((key) => ids.get(key) ?? key);
      const results = await client.search({ userId: question.userId, query: question.query, limit: 10 });
      nexus.push({ evidence, ranked: results.map((result) => result.id) });
      bm25.push({ evidence, ranked: baselines.get(question.userId)?.search(question.query, 10) ?? [] });
    }
    const round = (value: number) => Math.round(value * 1_000) / 1_000;
    const summary = {
      recall_at_5: round(recallAtK(nexus, 5)),
      recall_at_10: round(recallAtK(nexus, 10)),
      bm25_recall_at_5: round(recallAtK(bm25, 5)),
      bm25_recall_at_10: round(recallAtK(bm25, 10)),
      search: embedder ? `hybrid (${embedder.id})` : 'lexical (no embedder configured)',
      people: new Set(dataset.facts.map((fact) => fact.userId)).size,
      memories: new Set(ids.values()).size,
      questions: dataset.questions.length,
    };
    console.error(
      `recall@5 ${summary.recall_at_5} (BM25 ${summary.bm25_recall_at_5}), recall@10 ${summary.recall_at_10} (BM25 ${summary.bm25_recall_at_10}), ${summary.search}`,
    );
    console.log(JSON.stringify(summary));
  } finally {
    await server.close();
    store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
