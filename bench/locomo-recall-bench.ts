/**
 * pnpm bench:locomo [<locomo.json>] [--store sqlite,qdrant]
 * (also `pnpm bench:recall --locomo [<locomo.json>]`)
 *
 * Recall on real conversations, by the protocol in the README of the shared data folder beside the repository: each LoCoMo
 * conversation is one person; every turn is stored through the memory HTTP API as one memory
 * ("<speaker>: <text>", dated by its session, linked to its session); each question of categories
 * 1–4 is asked alone, once in process (`MemoryService.search`) and once over HTTP (`/search`), and
 * the protocol's plain BM25 (`stemmed-bm25.ts`) ranks the same stored memories in the same run.
 * Prints R_any@5, R_any@10 and evidence recall@10, overall and per category, for each store
 * (the embedded SQLite store, and Qdrant through the REST stand-in of @nexus/testkit); the last
 * line is one JSON object. The file defaults to the shared data folder's locomo-dev.json (beside the
 * repository); the data is never copied into the repository.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createMemoryClient,
  createSqliteMemoryStore,
  MemoryService,
  type MemoryStore,
  startMemoryHttpServer,
} from '@nexus/memory';
import { openQdrantMemoryStore } from '@nexus/memory-qdrant';
import { startQdrantStandIn } from '@nexus/testkit/qdrant';
import {
  CATEGORY_NAMES,
  figuresByCategory,
  type RankedQuestion,
  type RecallFigures,
} from './locomo/locomo-figures.ts';
import { type LocomoConversation, readLocomo } from './locomo/read-locomo.ts';
import { createStemmedBm25 } from './locomo/stemmed-bm25.ts';

const API_KEY = 'bench-locomo-key-0123456789';
const DEFAULT_FILE = resolve(import.meta.dirname, '../../shared/data/locomo-dev.json');

const { values, positionals } = parseArgs({
  options: {
    file: { type: 'string' },
    store: { type: 'string', default: 'sqlite,qdrant' },
  },
  allowPositionals: true,
});
const file = values.file ?? positionals[0] ?? DEFAULT_FILE;
if (!existsSync(file)) {
  console.error(`bench:locomo: no LoCoMo file at ${file}; pass one with --file <path>.`);
  process.exit(66);
}
const stores = values.store.split(',').map((name) => name.trim());
for (const name of stores) {
  if (name !== 'sqlite' && name !== 'qdrant') {
    console.error(`bench:locomo: --store takes sqlite and/or qdrant, not "${name}".`);
    process.exit(64);
  }
}

interface StoreRun {
  in_process: Record<string, RecallFigures>;
  over_http: Record<string, RecallFigures>;
  bm25: Record<string, RecallFigures>;
  /** Share of questions whose top 10 over HTTP is the in-process top 10, in order. */
  http_identical_ratio: number;
  memories: number;
  ingest_s: number;
  mean_search_ms_in_process: number;
}

async function runOn(
  label: string,
  openStore: () => Promise<{ store: MemoryStore; close: () => Promise<void> }>,
  conversations: readonly LocomoConversation[],
): Promise<StoreRun> {
  const { store, close } = await openStore();
  const service = new MemoryService({ store });
  const server = await startMemoryHttpServer({ service, apiKey: API_KEY });
  const client = createMemoryClient({ baseUrl: server.url, apiKey: API_KEY });
  try {
    const ingestStarted = performance.now();
    const ids = new Map<string, Map<string, string>>();
    for (const conversation of conversations) {
      const byTurn = new Map<string, string>();
      for (const turn of conversation.turns) {
        const added = await client.add({
          userId: conversation.userId,
          content: turn.content,
          category: 'event',
          source: 'user_explicit',
          sessionId: turn.sessionId,
          createdAt: turn.createdAt,
        });
        byTurn.set(turn.diaId, added.memory.id);
      }
      ids.set(conversation.userId, byTurn);
    }
    const ingestSeconds = (performance.now() - ingestStarted) / 1_000;
    const inProcess: RankedQuestion[] = [];
    const overHttp: RankedQuestion[] = [];
    const bm25: RankedQuestion[] = [];
    let identical = 0;
    let memories = 0;
    let searchMs = 0;
    for (const conversation of conversations) {
      const byTurn = ids.get(conversation.userId) ?? new Map<string, string>();
      const stored = await listAll(client, conversation.userId);
      memories += stored.length;
      // Insertion order (creation, then the order the turns were told), as a plain index would hold them.
      const order = new Map([...byTurn.values()].map((id, index) => [id, index]));
      stored.sort((left, right) => (order.get(left.id) ?? 0) - (order.get(right.id) ?? 0));
      const baseline = createStemmedBm25(stored.map((memory) => ({ id: memory.id, text: memory.content })));
      for (const question of conversation.questions) {
        const evidence = [...new Set(question.evidence.map((id) => byTurn.get(id) ?? id))];
        const started = performance.now();
        const local = await service.search({
          userId: conversation.userId,
          query: question.question,
          limit: 10,
        });
        searchMs += performance.now() - started;
        const remote = await client.search({
          userId: conversation.userId,
          query: question.question,
          limit: 10,
        });
        const localIds = local.map((hit) => hit.id);
        const remoteIds = remote.map((hit) => hit.id);
        if (localIds.join() === remoteIds.join()) identical += 1;
        inProcess.push({ category: question.category, evidence, ranked: localIds });
        overHttp.push({ category: question.category, evidence, ranked: remoteIds });
        bm25.push({ category: question.category, evidence, ranked: baseline.search(question.question, 10) });
      }
    }
    const run: StoreRun = {
      in_process: figuresByCategory(inProcess),
      over_http: figuresByCategory(overHttp),
      bm25: figuresByCategory(bm25),
      http_identical_ratio: Math.round((identical / Math.max(1, inProcess.length)) * 1_000) / 1_000,
      memories,
      ingest_s: Math.round(ingestSeconds * 10) / 10,
      mean_search_ms_in_process: Math.round((searchMs / Math.max(1, inProcess.length)) * 100) / 100,
    };
    printTable(label, run);
    return run;
  } finally {
    await server.close();
    await close();
  }
}

async function listAll(client: ReturnType<typeof createMemoryClient>, userId: string) {
  const all = [];
  for (let offset = 0; ; offset += 1_000) {
    const page = await client.list({ userId, limit: 1_000, offset });
    all.push(...page);
    if (page.length < 1_000) return all;
  }
}

function printTable(label: string, run: StoreRun): void {
  console.error(
    `\n${label}: ${run.memories} memories, ingest ${run.ingest_s} s over HTTP, HTTP = in process for ${run.http_identical_ratio} of questions`,
  );
  console.error(
    '| category | questions | Nexus R_any@5 | R_any@10 | ev. recall@10 | BM25 R_any@5 | R_any@10 | ev. recall@10 |',
  );
  console.error('|---|---|---|---|---|---|---|---|');
  for (const [key, name] of Object.entries(CATEGORY_NAMES)) {
    const nexus = run.over_http[key];
    const plain = run.bm25[key];
    if (!nexus || !plain) continue;
    console.error(
      `| ${name} | ${nexus.questions} | ${nexus.r_any_at_5} | ${nexus.r_any_at_10} | ${nexus.evidence_recall_at_10} | ${plain.r_any_at_5} | ${plain.r_any_at_10} | ${plain.evidence_recall_at_10} |`,
    );
  }
}

async function main(): Promise<void> {
  const conversations = readLocomo(file);
  const questions = conversations.reduce((sum, conversation) => sum + conversation.questions.length, 0);
  const unknown = conversations.reduce((sum, conversation) => sum + conversation.unknownEvidence, 0);
  console.error(
    `LoCoMo ${file}: ${conversations.length} conversations, ${questions} questions (categories 1–4), ${unknown} evidence ids naming no turn left out`,
  );
  const summary: Record<string, unknown> = {
    file: file === DEFAULT_FILE ? 'locomo-dev.json' : file,
    questions,
  };
  for (const name of stores) {
    if (name === 'sqlite') {
      const directory = mkdtempSync(join(tmpdir(), 'nexus-bench-locomo-'));
      summary.sqlite = await runOn(
        'embedded SQLite store',
        async () => {
          const store = createSqliteMemoryStore({ path: join(directory, 'memory.db') });
          return { store, close: async () => store.close() };
        },
        conversations,
      );
      rmSync(directory, { recursive: true, force: true });
    } else {
      const standIn = await startQdrantStandIn();
      summary.qdrant = await runOn(
        'Qdrant store (REST stand-in)',
        async () => {
          const store = await openQdrantMemoryStore({ url: standIn.url, collection: 'locomo' });
          return { store, close: () => store.close() };
        },
        conversations,
      );
      await standIn.close();
    }
  }
  console.log(JSON.stringify(compact(summary)));
}

/** The JSON line: overall figures, and per category R_any@10 and evidence recall@10 (Nexus over HTTP, BM25). */
function compact(summary: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { file: summary.file, questions: summary.questions };
  for (const name of ['sqlite', 'qdrant']) {
    const run = summary[name] as StoreRun | undefined;
    if (!run) continue;
    const all = run.over_http.all;
    const plain = run.bm25.all;
    out[name] = {
      r_any_at_5: all?.r_any_at_5,
      r_any_at_10: all?.r_any_at_10,
      evidence_recall_at_10: all?.evidence_recall_at_10,
      in_process_r_any_at_10: run.in_process.all?.r_any_at_10,
      bm25_r_any_at_5: plain?.r_any_at_5,
      bm25_r_any_at_10: plain?.r_any_at_10,
      bm25_evidence_recall_at_10: plain?.evidence_recall_at_10,
      by_category: Object.fromEntries(
        [1, 2, 3, 4].map((category) => {
          const key = `category_${category}`;
          return [
            category,
            [
              run.over_http[key]?.r_any_at_10,
              run.over_http[key]?.evidence_recall_at_10,
              run.bm25[key]?.r_any_at_10,
              run.bm25[key]?.evidence_recall_at_10,
            ],
          ];
        }),
      ),
      http_identical_ratio: run.http_identical_ratio,
      memories: run.memories,
      mean_search_ms_in_process: run.mean_search_ms_in_process,
    };
  }
  return out;
}

await main();
