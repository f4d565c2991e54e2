import { type FakeDiscord, startFakeDiscord } from '@nexus/testkit/discord';
import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../testing/gateway-process.ts';
import { BURST_RATE_LIMITS, runPlatformBurst } from '../testing/platform-burst.ts';
import {
  answerWithMarkers,
  createRestartDataDir,
  messageMarker,
  printRestartCounts,
  ReplyTally,
  type RestartSignal,
  restartTestEnv,
} from '../testing/restart-harness.ts';

const MESSAGES = 100;
const PEOPLE = 20;

let model: ScriptedModelServer;
let discord: FakeDiscord;
let dataDir: Awaited<ReturnType<typeof createRestartDataDir>>;
let gateway: GatewayProcess | undefined;

beforeEach(async () => {
  model = await startScriptedModelServer();
  answerWithMarkers(model);
  discord = await startFakeDiscord({ token: 'fake-discord-bot-token-0123456789' });
  dataDir = await createRestartDataDir();
});
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await Promise.all([discord.close(), model.close()]);
  await dataDir.remove();
});

/**
 * Discord does not redeliver: what arrives while no session is open is only in the channels'
 * history (the fake keeps it, and lives in this process). The adapter reads it back after its
 * durable per-channel cursor when the new process connects.
 */
describe.each<RestartSignal>(['SIGTERM', 'SIGKILL'])('Discord burst with a %s in the middle', (signal) => {
  it('answers every message exactly once after the restart', { timeout: 120_000 }, async () => {
    const label = `dc${signal === 'SIGTERM' ? 't' : 'k'}`;
    const markers = Array.from({ length: MESSAGES }, (_, index) => messageMarker(label, index));
    const people = Array.from({ length: PEOPLE }, (_, index) => ({
      id: String(400_000_000_000_000_000n + BigInt(index)),
      username: `person${index}`,
    }));
    const env = restartTestEnv({
      model,
      dataDir: dataDir.path,
      env: {
        NEXUS_DISCORD_BOT_TOKEN: discord.token,
        NEXUS_DISCORD_API_URL: discord.restApi,
        NEXUS_DISCORD_DM_POLICY: 'open',
        ...BURST_RATE_LIMITS,
      },
    });
    const replyTexts = () => discord.sentMessages.map((message) => message.content);
    const result = await runPlatformBurst({
      signal,
      env,
      markers,
      signalAfter: MESSAGES / 2,
      gapMs: 10,
      ready: () => discord.isGatewayLive(),
      // Each person's DM channel is known to the adapter before the signal (a channel it never
      // saw cannot be read back: Discord lists no DM channels to a bot).
      signalWhen: () => {
        const tally = new ReplyTally(markers);
        for (const text of replyTexts()) tally.record(text);
        return tally.counts().answered >= PEOPLE;
      },
      send: (index) => {
        discord.injectDirectMessage({
          content: `please repeat ${markers[index]}`,
          author: people[index % PEOPLE]!,
        });
      },
      replyTexts,
    });
    gateway = result.restarted;
    const backfilled = gateway.output.filter((line) =>
      line.includes('read discord messages sent while disconnected'),
    );
    printRestartCounts('discord', signal, result.counts, {
      exit: result.exit,
      backfillLines: backfilled.length,
    });
    expect(result.counts.missing).toEqual([]);
    expect(result.counts.duplicates).toEqual([]);
    expect(result.counts.answered).toBe(MESSAGES);
  });
});
