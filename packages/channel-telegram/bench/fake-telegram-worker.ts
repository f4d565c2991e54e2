/**
 * The fake Bot API in its own thread for `pnpm bench:telegram`, so its work does not count as
 * the adapter's. It timestamps on the shared wall clock (`timeOrigin + now`) and answers
 * `push`, `dump` and `close` requests from the benchmark.
 */
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { type FakeTelegramChat, startFakeTelegram } from '@nexus/testkit/telegram';

export type WorkerRequest =
  | { id: number; type: 'push'; chat: FakeTelegramChat; text: string }
  | { id: number; type: 'dump' }
  | { id: number; type: 'close' };

export interface WorkerDump {
  /** When each update was first served by getUpdates. */
  servedAt: [number, number][];
  /** Successful sendMessage calls: arrival time and text. */
  sent: { at: number; text: string }[];
  callCounts: Record<string, number>;
  updatesPerPoll: number[];
}

const port = parentPort;
if (!port) throw new Error('fake-telegram-worker must run in a worker thread');
const clock = () => performance.timeOrigin + performance.now();
const fake = await startFakeTelegram({ now: clock });
const pushed: number[] = [];

port.on('message', async (request: WorkerRequest) => {
  if (request.type === 'push') {
    pushed.push(fake.pushMessage({ chat: request.chat, text: request.text }).updateId);
    return;
  }
  if (request.type === 'dump') {
    const calls = fake.calls();
    const callCounts: Record<string, number> = {};
    for (const call of calls) callCounts[call.method] = (callCounts[call.method] ?? 0) + 1;
    const served = new Map<number, number>();
    for (const updateId of pushed) {
      const at = fake.updateServedAt(updateId);
      if (at !== undefined) served.set(updateId, at);
    }
    const perPoll = new Map<number, number>();
    for (const at of served.values()) perPoll.set(at, (perPoll.get(at) ?? 0) + 1);
    const dump: WorkerDump = {
      servedAt: [...served],
      sent: calls
        .filter((call) => call.method === 'sendMessage' && call.status === 200)
        .map((call) => ({ at: call.at, text: String(call.payload.text) })),
      callCounts,
      updatesPerPoll: [...perPoll.values()],
    };
    port.postMessage({ id: request.id, dump });
    return;
  }
  await fake.close();
  port.postMessage({ id: request.id });
  port.close();
});

port.postMessage({ id: 0, ready: { apiRoot: fake.apiRoot, token: fake.token, botInfo: fake.botInfo } });
