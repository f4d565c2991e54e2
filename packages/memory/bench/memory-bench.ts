/**
 * pnpm bench:memory — the embedded store, lexical only and with a fixed 384-dimension test
 * embedder (hashed bag of words, in process): add throughput, then search and context latency
 * at 1k, 10k and 100k memories for one person among 1,000 people. The last line is JSON.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  contentHash,
  createSqliteMemoryStore,
  type Embedder,
  type Memory,
  MemoryService,
  type MemoryStore,
  type SqliteMemoryStore,
  type StoreSearchHit,
  sharedTokenCounter,
} from '../src/index.ts';
import { createHashedEmbedder, seededRandom } from '../src/testing/index.ts';

// A collection before each memory reading, so ArrayBuffer growth counts what is held, not garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const PEOPLE = 1_000;
const OTHERS_EACH = 20;
const SCALES = [1_000, 10_000, 100_000];
const QUERIES = 200;
const ADDS = 4_000;
const ADD_BATCH = 100;
const VOCABULARY = (
  'tea coffee morning evening jazz piano trains harbour garden dog cat bicycle marathon dutch spanish ' +
  'recipe pasta spicy vegan allergy peanuts doctor nurse teacher kyoto lisbon winter summer books poetry ' +
  'chess football budget savings sister brother birthday concert hiking sushi cycling painting rent office'
).split(' ');
const random = seededRandom(1);
const word = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)] ?? 'tea';
const sentence = (index: number) => `Likes ${word()} and ${word()} with ${word()} ${word()} ${index}`;

/**
 * Measures the embedder's own time, so latencies can be reported without it. The test embedder
 * computes synchronously inside `embed`, so the clock stops when the call returns, before the
 * await: timing across the await would also count whatever other concurrent adds ran meanwhile
 * (the store's work), and subtracting that overstated add throughput.
 */
function timed(embedder: Embedder): Embedder & { spentMs: number } {
  const wrapper = {
    id: embedder.id,
    dimensions: embedder.dimensions,
    spentMs: 0,
    embed(options: Parameters<Embedder['embed']>[0]) {
      const started = performance.now();
      const vectors = embedder.embed(options);
      wrapper.spentMs += performance.now() - started;
      return vectors;
    },
  };
  return wrapper;
}

/**
 * Whether the store's fast path (the quantised pre-filter, its index ready) returns exactly what
 * the exact sqlite-vec scan returns, for every bench query: the dense channel alone (top 60 by
 * cosine), the user-scope search a context runs (top 60, dense and lexical fused), and the whole
 * context a turn gets (the memories used and the text, both services on one fixed clock).
 * Returns the share of queries with identical results, per kind.
 */
async function sameAsExact(
  fast: { store: SqliteMemoryStore; service: MemoryService },
  exact: { store: MemoryStore; service: MemoryService },
  queries: readonly string[],
  embedder: Embedder,
  indexed: boolean,
): Promise<{ dense: number; hybrid: number; context: number }> {
  // The exact service's contexts record lastUsedAt from another connection, which drops the
  // fast store's index: all fast answers are taken first, with the index checked ready.
  await fast.store.warmVectorIndex({ userId: 'person-0' });
  const answers = async (side: typeof fast | typeof exact) => {
    const results: string[] = [];
    for (const text of queries) {
      const [embedding] = await embedder.embed({ texts: [text] });
      for (const queryText of [text, '']) {
        const options = {
          userId: 'person-0',
          text: queryText,
          embedding,
          limit: 60,
          scopes: ['user'] as const,
        };
        results.push(canonical(await side.store.search(options)));
      }
      const context = await side.service.context({
        userId: 'person-0',
        query: text,
        sessionId: 'bench-session',
      });
      results.push(JSON.stringify([context.memoryIds, context.context]));
    }
    return results;
  };
  const fastAnswers = await answers(fast);
  const stats = fast.store.vectorCacheStats();
  const ready = stats?.people.some((person) => person.userId === 'person-0') && stats.building.length === 0;
  if (indexed && !ready) {
    throw new Error(
      'the fast store answered without its quantised index; the comparison would be exact vs exact',
    );
  }
  const exactAnswers = await answers(exact);
  const share = (offset: number) =>
    queries.filter((_, query) => fastAnswers[query * 3 + offset] === exactAnswers[query * 3 + offset])
      .length / queries.length;
  return { hybrid: share(0), dense: share(1), context: share(2) };
}

/**
 * A search's results as text: ids and relevance in rank order, where memories of equal
 * relevance may come in any order (the service orders them by its own tie-break). Which members
 * of a tied group at the cut are kept is fixed (lowest rowid, on both paths), so it must match.
 */
function canonical(hits: StoreSearchHit[]): string {
  return [...hits]
    .sort((left, right) => right.relevance - left.relevance || left.memory.id.localeCompare(right.memory.id))
    .map((hit) => `${hit.memory.id}:${hit.relevance}`)
    .join(',');
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0;
}

const round = (value: number) => Math.round(value * 100) / 100;
// Latencies on a shared machine depend on what else runs: the load average is printed with them.
const loadAtStart = loadavg()[0] ?? 0;
const tokenCounter = sharedTokenCounter();
const rows: string[][] = [];
const figures: Record<string, number> = {};
const checks: string[] = [];

/**
 * A large person's first search after the store opens: it answers from the exact scan and
 * starts the quantised index build in the background. Measured: that search, the time until the
 * index is ready, the longest the event loop was held meanwhile (a build slice), the cache's
 * bytes and the growth of ArrayBuffer memory; then, for comparison, the same first search on a
 * second connection that builds the index inside the search (`buildInBackground: false`).
 */
async function firstSearch(
  store: SqliteMemoryStore,
  service: MemoryService,
  embedder: Embedder & { spentMs: number },
  query: string,
  label: string,
  openInline: () => SqliteMemoryStore,
): Promise<void> {
  gc();
  const buffersBefore = process.memoryUsage().arrayBuffers;
  const spent = embedder.spentMs;
  const started = performance.now();
  await service.search({ userId: 'person-0', query, limit: 10 });
  const firstMs = performance.now() - started - (embedder.spentMs - spent);
  const monitor = monitorEventLoopDelay({ resolution: 1 });
  monitor.enable();
  const ready = await store.warmVectorIndex({ userId: 'person-0' });
  const readyMs = performance.now() - started;
  monitor.disable();
  const bytes = store.vectorCacheStats()?.bytes ?? 0;
  gc();
  const buffers = process.memoryUsage().arrayBuffers - buffersBefore;
  const inline = openInline();
  const inlineService = new MemoryService({ store: inline, embedder, tokenCounter });
  const inlineSpent = embedder.spentMs;
  const inlineStarted = performance.now();
  await inlineService.search({ userId: 'person-0', query, limit: 10 });
  const inlineMs = performance.now() - inlineStarted - (embedder.spentMs - inlineSpent);
  await inline.close();
  figures[`first_search_ms_${label}`] = round(firstMs);
  figures[`index_ready_ms_${label}`] = round(readyMs);
  figures[`build_max_block_ms_${label}`] = round(monitor.max / 1e6);
  figures[`inline_first_search_ms_${label}`] = round(inlineMs);
  figures[`vector_cache_bytes_${label}`] = bytes;
  checks.push(
    `${label}: first search ${round(firstMs)} ms (exact scan; index ${ready ? 'ready' : 'NOT built'} ${round(readyMs)} ms after it, event loop held at most ${round(monitor.max / 1e6)} ms meanwhile); building inside the search instead: ${round(inlineMs)} ms`,
    `${label}: quantised index ${(bytes / 2 ** 20).toFixed(1)} MiB by its own count, ArrayBuffer memory +${(buffers / 2 ** 20).toFixed(1)} MiB`,
  );
}

for (const config of ['lexical', 'hybrid-384'] as const) {
  const embedder = config === 'hybrid-384' ? timed(createHashedEmbedder({ dimensions: 384 })) : undefined;
  for (const scale of SCALES) {
    const directory = mkdtempSync(join(tmpdir(), 'nexus-memory-bench-'));
    const vectors = embedder ? { embedderId: embedder.id, dimensions: 384 } : undefined;
    const store = createSqliteMemoryStore({ path: join(directory, 'memory.sqlite'), vectors });
    const now = Date.now();
    const load = async (userId: string, count: number) => {
      for (let start = 0; start < count; start += 5_000) {
        const texts = Array.from({ length: Math.min(5_000, count - start) }, (_, offset) =>
          sentence(start + offset),
        );
        const embeddings = embedder ? await embedder.embed({ texts }) : [];
        const items = texts.map((content, index) => {
          const memory: Memory = {
            id: randomUUID(),
            userId,
            scope: 'user',
            content,
            category: 'fact',
            source: 'inferred',
            createdAt: now - index * 60_000,
            updatedAt: now - index * 60_000,
            hash: contentHash(content),
            metadata: {},
          };
          return { memory, embedding: embeddings[index] };
        });
        await store.insertMany({ items });
      }
    };
    for (let person = 1; person < PEOPLE; person++) await load(`person-${person}`, OTHERS_EACH);
    await load('person-0', scale);
    const service = new MemoryService({ store, embedder, tokenCounter });
    const queries = Array.from({ length: QUERIES }, () => `${word()} ${word()} ${word()}`);
    const label = scale >= 1_000 ? `${scale / 1_000}k` : String(scale);
    if (embedder && scale >= 10_000) {
      await firstSearch(store, service, embedder, queries[0] ?? 'tea', label, () =>
        createSqliteMemoryStore({
          path: join(directory, 'memory.sqlite'),
          vectors,
          vectorCache: { buildInBackground: false, warmOnOpen: false },
        }),
      );
    }

    const searchTimes: number[] = [];
    const contextTimes: number[] = [];
    for (const text of queries) {
      let spent = embedder?.spentMs ?? 0;
      let started = performance.now();
      await service.search({ userId: 'person-0', query: text, limit: 10 });
      searchTimes.push(performance.now() - started - ((embedder?.spentMs ?? 0) - spent));
      spent = embedder?.spentMs ?? 0;
      started = performance.now();
      await service.context({ userId: 'person-0', query: text, sessionId: 'bench-session' });
      contextTimes.push(performance.now() - started - ((embedder?.spentMs ?? 0) - spent));
    }
    rows.push([
      config,
      label,
      ...[0.5, 0.95, 0.99].map((fraction) => String(round(percentile(searchTimes, fraction)))),
      ...[0.5, 0.95, 0.99].map((fraction) => String(round(percentile(contextTimes, fraction)))),
    ]);
    if (config === 'hybrid-384' && embedder) {
      figures[`context_p95_ms_${label}`] = round(percentile(contextTimes, 0.95));
      if (scale === 10_000) figures.search_p95_ms_10k = round(percentile(searchTimes, 0.95));
      // The same queries through the exact sqlite-vec scan (the store without its quantised
      // cache) right after, so both run under about the same load on this shared machine.
      const exact = createSqliteMemoryStore({
        path: join(directory, 'memory.sqlite'),
        vectors,
        vectorCache: false,
      });
      const exactService = new MemoryService({ store: exact, embedder, tokenCounter });
      const exactTimes: number[] = [];
      for (const text of queries) {
        const spent = embedder.spentMs;
        const started = performance.now();
        await exactService.context({ userId: 'person-0', query: text, sessionId: 'bench-session' });
        exactTimes.push(performance.now() - started - (embedder.spentMs - spent));
      }
      rows.push([
        'exact scan',
        label,
        '',
        '',
        '',
        ...[0.5, 0.95, 0.99].map((fraction) => String(round(percentile(exactTimes, fraction)))),
      ]);
      figures[`exact_context_p95_ms_${label}`] = round(percentile(exactTimes, 0.95));
      const clock = () => now;
      const same = await sameAsExact(
        { store, service: new MemoryService({ store, embedder, tokenCounter, now: clock }) },
        { store: exact, service: new MemoryService({ store: exact, embedder, tokenCounter, now: clock }) },
        queries,
        embedder,
        // Below 2,000 memories (vectorCache.minVectors) a person has no index: exact on both sides.
        scale >= 2_000,
      );
      await exact.close();
      checks.push(
        `${label}: identical to the exact scan for ${same.dense * 100}% (dense top 60) / ${same.hybrid * 100}% (fused top 60) / ${same.context * 100}% (whole context) of queries`,
      );
      figures.topk_identical_ratio = Math.min(figures.topk_identical_ratio ?? 1, same.dense);
      figures.hybrid_topk_identical_ratio = Math.min(figures.hybrid_topk_identical_ratio ?? 1, same.hybrid);
      figures.context_identical_ratio = Math.min(figures.context_identical_ratio ?? 1, same.context);
    }

    if (scale === SCALES[0]) {
      // Add throughput through MemoryService (hash check, embed, near-duplicate KNN, insert),
      // in batches of concurrent adds spread over people, as extraction jobs arrive.
      const spentBefore = embedder?.spentMs ?? 0;
      const started = performance.now();
      for (let batch = 0; batch < ADDS / ADD_BATCH; batch++) {
        await Promise.all(
          Array.from({ length: ADD_BATCH }, (_, index) =>
            service.add({
              userId: `person-${1 + ((batch * ADD_BATCH + index) % (PEOPLE - 1))}`,
              content: `New fact ${batch} ${index} ${word()} ${word()}`,
            }),
          ),
        );
      }
      const elapsedMs = performance.now() - started - ((embedder?.spentMs ?? 0) - spentBefore);
      const perSecond = Math.round((ADDS / elapsedMs) * 1_000);
      rows.push([config, 'add', `${perSecond}/s`, '', '', '', '', '']);
      if (config === 'hybrid-384') figures.add_per_s = perSecond;
    }
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

const header = ['config', 'memories', 'search p50', 'p95', 'p99', 'context p50', 'p95', 'p99'];
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
);
const format = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
console.log(
  `memory bench: one person among ${PEOPLE} people (${OTHERS_EACH} memories each), ${QUERIES} queries, ms`,
);
console.log(
  `tokenizer ${tokenCounter.name}; embedder time excluded (hashed bag of words, 384 dims, in process)`,
);
console.log(
  `${availableParallelism()} cores; 1-minute load average ${round(loadAtStart)} at start, ${round(loadavg()[0] ?? 0)} at end`,
);
console.log(format(header));
for (const row of rows) console.log(format(row));
for (const check of checks) console.log(`hybrid-384 ${check}`);
console.log(
  JSON.stringify({
    add_per_s: figures.add_per_s,
    context_p95_ms_1k: figures.context_p95_ms_1k,
    context_p95_ms_10k: figures.context_p95_ms_10k,
    context_p95_ms_100k: figures.context_p95_ms_100k,
    search_p95_ms_10k: figures.search_p95_ms_10k,
    topk_identical_ratio: figures.topk_identical_ratio,
    hybrid_topk_identical_ratio: figures.hybrid_topk_identical_ratio,
    context_identical_ratio: figures.context_identical_ratio,
    exact_context_p95_ms_10k: figures.exact_context_p95_ms_10k,
    exact_context_p95_ms_100k: figures.exact_context_p95_ms_100k,
    first_search_ms_10k: figures.first_search_ms_10k,
    first_search_ms_100k: figures.first_search_ms_100k,
    index_ready_ms_100k: figures.index_ready_ms_100k,
    build_max_block_ms_100k: figures.build_max_block_ms_100k,
    inline_first_search_ms_100k: figures.inline_first_search_ms_100k,
    vector_cache_bytes_100k: figures.vector_cache_bytes_100k,
  }),
);
