/**
 * pnpm bench:telegram — 100 chats (80 private, 20 groups addressing the bot) × 20 messages
 * through the real adapter (grammY runner long polling, HTML rendering, typing, draft
 * streaming) against the fake Bot API running in a worker thread. A stand-in for core accepts
 * each intent and replies at once (typing, start, one delta, end, as core orders them), so what
 * is measured is the adapter:
 *   inbound  = getUpdates answer leaves the fake → intent reaches the sink;
 *   outbound = first reply event reaches the adapter → sendMessage reaches the fake.
 * Two rounds of 100 × 20 messages (after a warm-up of 100 messages in other chats):
 *   saturated — each chat writes again as soon as its answer arrived: `messages_per_s`;
 *   paced     — each chat writes again 0.5–1.5 s after its answer (≈100 messages/s, three times
 *               Telegram's own ~30 messages/s per bot): `adapter_p95_ms`, the 95th percentile of
 *               inbound + outbound, i.e. the time the adapter adds when the machine is not
 *               saturated. At saturation latency is queueing (chats in flight / throughput);
 *               it is printed as well. The last line is JSON.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import {
  conversationRefOf,
  type IntakeResult,
  type IntentInput,
  intentSchema,
  type ReplyEvent,
  silentLogger,
} from '@nexus/protocol';
import type { FakeTelegramChat } from '@nexus/testkit/telegram';
import type { UserFromGetMe } from 'grammy/types';
import { percentile, printTable, round } from '../../../bench/bench-stats.ts';
import { createMemoryUpdateStore, createTelegramChannel } from '../src/index.ts';
import type { WorkerDump, WorkerRequest } from './fake-telegram-worker.ts';

const CHATS = 100;
const GROUP_CHATS = 20;
const MESSAGES_PER_CHAT = 20;
const clock = () => performance.timeOrigin + performance.now();

const worker = new Worker(new URL('./fake-telegram-worker.ts', import.meta.url));
const pending = new Map<number, (value: unknown) => void>();
let nextRequestId = 1;
const ready = new Promise<{ apiRoot: string; token: string; botInfo: UserFromGetMe }>((resolve) => {
  pending.set(0, (message) =>
    resolve((message as { ready: { apiRoot: string; token: string; botInfo: UserFromGetMe } }).ready),
  );
});
worker.on('message', (message: { id: number }) => {
  pending.get(message.id)?.(message);
  pending.delete(message.id);
});
const request = <T>(body: Omit<WorkerRequest, 'id'>): Promise<T> => {
  const id = nextRequestId++;
  return new Promise<T>((resolve) => {
    pending.set(id, (message) => resolve(message as T));
    worker.postMessage({ ...body, id });
  });
};
const push = (chat: FakeTelegramChat, text: string) =>
  worker.postMessage({ type: 'push', id: -1, chat, text });

const { apiRoot, token, botInfo } = await ready;
const sinkAt = new Map<string, number>();
const updateIdOf = new Map<string, number>();
const replyStartedAt = new Map<string, number>();
const lanes = new Map<string, Promise<void>>();
let onDelivered: (intent: IntentInput) => void = () => {};

const channel = createTelegramChannel({
  token,
  apiRoot,
  botInfo,
  updateStore: createMemoryUpdateStore(),
  logger: silentLogger,
  concurrency: 200,
});

async function* replyTo(intent: IntentInput): AsyncIterable<ReplyEvent> {
  const text = `Re ${intent.id}: you said **${intent.text.slice(0, 40)}** — see \`code < 1 & 2\`.`;
  replyStartedAt.set(intent.id, clock());
  // The order core uses: typing as the turn starts, then the reply.
  yield { type: 'typing' };
  yield { type: 'reply.start', replyId: intent.id };
  yield { type: 'reply.delta', replyId: intent.id, text };
  yield { type: 'reply.end', replyId: intent.id, text };
}

async function sink(intent: IntentInput): Promise<IntakeResult> {
  sinkAt.set(intent.id, clock());
  updateIdOf.set(intent.id, (intent.raw as { update_id: number }).update_id);
  const conversation = conversationRefOf(intentSchema.parse(intent));
  // One reply at a time per conversation, as core's lanes do; the intake itself answers at once.
  const previous = lanes.get(conversation.conversationId) ?? Promise.resolve();
  const next = previous.then(async () => {
    await channel.deliver({ conversation, events: replyTo(intent) });
    onDelivered(intent);
  });
  lanes.set(conversation.conversationId, next);
  return { status: 'accepted' };
}

function chatFor(index: number, base: number): FakeTelegramChat {
  return index < GROUP_CHATS
    ? { id: -(base + index), type: 'supergroup', title: `Group ${index}` }
    : { id: base + index, type: 'private', firstName: `Person ${index}` };
}

/** Every chat writes its first message; each answer triggers that chat's next message. */
async function runRound(base: number, messagesPerChat: number, thinkMs?: () => number): Promise<number> {
  const sentPerChat = new Map<number, number>();
  const chats = Array.from({ length: CHATS }, (_, index) => chatFor(index, base));
  const byId = new Map(chats.map((chat) => [chat.id, chat]));
  let delivered = 0;
  const total = CHATS * messagesPerChat;
  const started = clock();
  const writeNext = (chat: FakeTelegramChat) => {
    const count = sentPerChat.get(chat.id) ?? 0;
    if (count >= messagesPerChat) return;
    sentPerChat.set(chat.id, count + 1);
    const mention = chat.type === 'private' ? '' : '@nexus_test_bot ';
    push(chat, `${mention}message ${count} from chat ${chat.id}: does <this> & that render?`);
  };
  const finished = new Promise<void>((resolve) => {
    onDelivered = (intent) => {
      delivered++;
      const chat = byId.get(Number(intent.conversation.id));
      if (chat && thinkMs) setTimeout(() => writeNext(chat), thinkMs());
      else if (chat) writeNext(chat);
      if (delivered === total) resolve();
    };
  });
  // Paced: people start at different moments, as they would; saturated: all at once.
  for (const chat of chats) {
    if (thinkMs) setTimeout(() => writeNext(chat), thinkMs() - 500);
    else writeNext(chat);
  }
  await finished;
  return clock() - started;
}

await channel.start({ sink });
await runRound(9_000_000, 1);
const warmupIds = new Set(sinkAt.keys());
const saturatedStart = sinkAt.size;
const saturatedMs = await runRound(1_000_000, MESSAGES_PER_CHAT);
const saturatedIds = new Set([...sinkAt.keys()].slice(saturatedStart));
let seed = 7;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pacedMs = await runRound(2_000_000, MESSAGES_PER_CHAT, () => 500 + random() * 1000);
const dump = (await request<{ dump: WorkerDump }>({ type: 'dump' })).dump;
await channel.stop();
await request({ type: 'close' });

const servedAt = new Map(dump.servedAt);
const sentAt = new Map<string, number>();
for (const sent of dump.sent) {
  const id = /^Re (-?\d+:\d+):/.exec(sent.text)?.[1];
  if (id && !sentAt.has(id)) sentAt.set(id, sent.at);
}
interface Sample {
  inbound: number[];
  outbound: number[];
  total: number[];
}
const saturated: Sample = { inbound: [], outbound: [], total: [] };
const paced: Sample = { inbound: [], outbound: [], total: [] };
for (const [id, sinkTime] of sinkAt) {
  if (warmupIds.has(id)) continue;
  const served = servedAt.get(updateIdOf.get(id) ?? -1);
  const replyStart = replyStartedAt.get(id);
  const sent = sentAt.get(id);
  if (served === undefined || replyStart === undefined || sent === undefined) continue;
  const sample = saturatedIds.has(id) ? saturated : paced;
  sample.inbound.push(sinkTime - served);
  sample.outbound.push(sent - replyStart);
  sample.total.push(sinkTime - served + (sent - replyStart));
}
const messages = CHATS * MESSAGES_PER_CHAT;
const messagesPerSecond = messages / (saturatedMs / 1000);
const polls = dump.updatesPerPoll;
const spread = (values: number[]) =>
  `${round(percentile(values, 50))} / ${round(percentile(values, 95))} / ${round(percentile(values, 99))} ms`;
printTable([
  [
    'messages measured',
    `${saturated.total.length} saturated + ${paced.total.length} paced (+${warmupIds.size} warm-up)`,
  ],
  ['saturated: wall time', `${round(saturatedMs)} ms`],
  ['saturated: messages/s', round(messagesPerSecond, 1)],
  ['saturated: inbound p50/p95/p99', spread(saturated.inbound)],
  ['saturated: outbound p50/p95/p99', spread(saturated.outbound)],
  ['saturated: adapter p50/p95/p99', spread(saturated.total)],
  ['paced: wall time', `${round(pacedMs)} ms (${round(messages / (pacedMs / 1000), 1)} messages/s offered)`],
  ['paced: inbound p50/p95/p99', spread(paced.inbound)],
  ['paced: outbound p50/p95/p99', spread(paced.outbound)],
  ['paced: adapter p50/p95/p99', spread(paced.total)],
  [
    'updates per getUpdates answer',
    `${round(polls.reduce((sum, value) => sum + value, 0) / Math.max(1, polls.length), 1)} avg, ${Math.max(...polls)} max`,
  ],
  [
    'API calls',
    Object.entries(dump.callCounts)
      .map(([method, count]) => `${method} ${count}`)
      .join(', '),
  ],
  ['rss', `${round(process.memoryUsage().rss / 1024 / 1024, 1)} MB`],
]);
console.log(
  JSON.stringify({
    bench: 'telegram',
    chats: CHATS,
    messages_per_chat: MESSAGES_PER_CHAT,
    messages_per_s: round(messagesPerSecond, 1),
    adapter_p50_ms: round(percentile(paced.total, 50)),
    adapter_p95_ms: round(percentile(paced.total, 95)),
    adapter_p99_ms: round(percentile(paced.total, 99)),
    paced_messages_per_s: round(messages / (pacedMs / 1000), 1),
    saturated_adapter_p95_ms: round(percentile(saturated.total, 95)),
    measured: saturated.total.length + paced.total.length,
  }),
);
