import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { type FakeTelegram, startFakeTelegram } from '@nexus/testkit/telegram';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../testing/gateway-process.ts';
import { BURST_RATE_LIMITS, runPlatformBurst } from '../testing/platform-burst.ts';
import {
  answerWithMarkers,
  createRestartDataDir,
  messageMarker,
  printRestartCounts,
  type RestartSignal,
  restartTestEnv,
} from '../testing/restart-harness.ts';

const MESSAGES = 100;
const CHATS = 20;

let model: ScriptedModelServer;
let telegram: FakeTelegram;
let dataDir: Awaited<ReturnType<typeof createRestartDataDir>>;
let gateway: GatewayProcess | undefined;

beforeEach(async () => {
  model = await startScriptedModelServer();
  answerWithMarkers(model);
  telegram = await startFakeTelegram({ recordCalls: false });
  dataDir = await createRestartDataDir();
});
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await Promise.all([telegram.close(), model.close()]);
  await dataDir.remove();
});

/**
 * The fake Bot API keeps each update until a later getUpdates offset confirms it, as Telegram
 * does, and it lives in this process: what the gateway had not confirmed when it went down is
 * still there for the next one.
 */
describe.each<RestartSignal>(['SIGTERM', 'SIGKILL'])('Telegram burst with a %s in the middle', (signal) => {
  it('answers every message exactly once after the restart', { timeout: 120_000 }, async () => {
    const label = `tg${signal === 'SIGTERM' ? 't' : 'k'}`;
    const markers = Array.from({ length: MESSAGES }, (_, index) => messageMarker(label, index));
    const env = restartTestEnv({
      model,
      dataDir: dataDir.path,
      env: {
        NEXUS_TELEGRAM_BOT_TOKEN: telegram.token,
        NEXUS_TELEGRAM_API_ROOT: telegram.apiRoot,
        NEXUS_TELEGRAM_DM_POLICY: 'open',
        ...BURST_RATE_LIMITS,
      },
    });
    const updateIds: number[] = [];
    const result = await runPlatformBurst({
      signal,
      env,
      markers,
      signalAfter: MESSAGES / 2,
      // The first half goes out at once, and the signal follows as soon as getUpdates handed the
      // last of it to the gateway: the kill lands while that batch is being taken in.
      gapMs: 0,
      signalWhen: () => {
        const last = updateIds[MESSAGES / 2 - 1];
        return last !== undefined && telegram.updateServedAt(last) !== undefined;
      },
      send: (index) => {
        const chatId = 7_100 + (index % CHATS);
        const pushed = telegram.pushMessage({
          chat: { id: chatId, type: 'private' },
          text: `please repeat ${markers[index]}`,
        });
        updateIds.push(pushed.updateId);
      },
      replyTexts: () => telegram.botMessages().map((message) => message.text),
    });
    gateway = result.restarted;
    printRestartCounts('telegram', signal, result.counts, {
      exit: result.exit,
      unconfirmedUpdates: telegram.pendingUpdateCount,
    });
    expect(result.counts.missing).toEqual([]);
    expect(result.counts.duplicates).toEqual([]);
    expect(result.counts.answered).toBe(MESSAGES);
  });
});
