/**
 * pnpm bench:recall — retrieval quality on a generated multi-session data set (recall-dataset.ts):
 * the memories are ingested through the memory HTTP API (a server started in process on the
 * embedded SQLite store), each dated by its session, and every question is asked through
 * `/search` twice: on its own, and as the conversation's follow-up (the message with its recent
 * turns). Recall@5 and @10 of the known evidence are printed for Nexus and for a plain BM25 over
 * the same memories (given the turns and the message as one text), computed in the same run. The
 * last line is one JSON object.
 *
 * `--locomo [<file>]` runs the LoCoMo protocol instead (`bench/locomo-recall-bench.ts`).
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
import { FIRST_SESSION, generateRecallDataset, recallAtK } from './recall-dataset.ts';

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

type Rankings = Array<{ evidence: string[]; ranked: string[] }>;

async function main(): Promise<void> {
  const dataset = generateRecallDataset();
  const embedder = embedderFromEnvironment();
  const directory = mkdtempSync(join(tmpdir(), 'nexus-bench-recall-'));
  let clock = FIRST_SESSION;
  const store = createSqliteMemoryStore({
    path: join(directory, 'memory.db'),
    ...(embedder ? { vectors: { embedderId: embedder.id, dimensions: embedder.dimensions } } : {}),
  });
  const service = new MemoryService({ store, now: () => clock, embedder });
  const server = await startMemoryHttpServer({ service, apiKey: API_KEY });
  const client = createMemoryClient({ baseUrl: server.url, apiKey: API_KEY });
  try {
    // Sessions in date order, as they happened; each memory is dated by the service's clock.
    const ids = new Map<string, string>();
    const ordered = [...dataset.facts].sort((left, right) => left.day - right.day);
    for (const fact of ordered) {
      clock = FIRST_SESSION + fact.day * DAY_MS;
      const added = await client.add({
        userId: fact.userId,
        content: fact.content,
        category: fact.category,
        source: fact.source,
        sessionId: `${fact.userId}#${fact.session}`,
      });
      ids.set(fact.key, added.memory.id);
    }
    clock = FIRST_SESSION + dataset.askedOnDay * DAY_MS;

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

    const nexus: Rankings = [];
    const nexusWithContext: Rankings = [];
    const bm25: Rankings = [];
    const bm25WithContext: Rankings = [];
    const searchStarted = performance.now();
    for (const question of dataset.questions) {
      const evidence = question.evidence.map((key) => ids.get(key) ?? key);
      const alone = await client.search({ userId: question.userId, query: question.query, limit: 10 });
      nexus.push({ evidence, ranked: alone.map((result) => result.id) });
      const followUp = await client.search({
        userId: question.userId,
        query: question.message,
        recentTurns: question.turns,
        limit: 10,
      });
      nexusWithContext.push({ evidence, ranked: followUp.map((result) => result.id) });
      const baseline = baselines.get(question.userId);
      bm25.push({ evidence, ranked: baseline?.search(question.query, 10) ?? [] });
      const conversation = [...question.turns, question.message].join('\n');
      bm25WithContext.push({ evidence, ranked: baseline?.search(conversation, 10) ?? [] });
    }
    const searchMs = (performance.now() - searchStarted) / (dataset.questions.length * 2);
    const round = (value: number) => Math.round(value * 1_000) / 1_000;
    // Per kind of question, on stderr: where a change helps and where it hurts.
    const kinds = [...new Set(dataset.questions.map((question) => question.kind))];
    for (const kind of kinds) {
      const of = (rankings: Rankings) =>
        rankings.filter((_, index) => dataset.questions[index]?.kind === kind);
      console.error(
        `${kind.padEnd(10)} recall@10 ${round(recallAtK(of(nexus), 10))} (BM25 ${round(recallAtK(of(bm25), 10))}), with context ${round(recallAtK(of(nexusWithContext), 10))} (BM25 ${round(recallAtK(of(bm25WithContext), 10))})`,
      );
    }
    const summary = {
      recall_at_5: round(recallAtK(nexus, 5)),
      recall_at_10: round(recallAtK(nexus, 10)),
      bm25_recall_at_5: round(recallAtK(bm25, 5)),
      bm25_recall_at_10: round(recallAtK(bm25, 10)),
      recall_at_5_with_context: round(recallAtK(nexusWithContext, 5)),
      recall_at_10_with_context: round(recallAtK(nexusWithContext, 10)),
      bm25_recall_at_10_with_context: round(recallAtK(bm25WithContext, 10)),
      search: embedder ? `hybrid (${embedder.id})` : 'lexical (no embedder configured)',
      people: new Set(dataset.facts.map((fact) => fact.userId)).size,
      memories: new Set(ids.values()).size,
      questions: dataset.questions.length,
      mean_search_ms_over_http: round(searchMs),
    };
    console.error(
      `recall@10 ${summary.recall_at_10} (BM25 ${summary.bm25_recall_at_10}), with context ${summary.recall_at_10_with_context} (BM25 ${summary.bm25_recall_at_10_with_context}), ${summary.search}`,
    );
    console.log(JSON.stringify(summary));
  } finally {
    await server.close();
    store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

// `pnpm bench:recall --locomo [<file>]`: the LoCoMo protocol instead (bench/locomo-recall-bench.ts).
const locomo = process.argv.indexOf('--locomo');
if (locomo >= 0) {
  process.argv.splice(locomo, 1);
  await import('../../../bench/locomo-recall-bench.ts');
} else await main();
