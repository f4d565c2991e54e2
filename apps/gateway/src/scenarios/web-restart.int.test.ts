import { type ScriptedModelServer, startScriptedModelServer } from '@nexus/testkit/llm';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from '../testing/gateway-process.ts';
import { ResendingWebClient } from '../testing/resending-web-client.ts';
import {
  answerWithMarkers,
  createRestartDataDir,
  loggedEntries,
  messageMarker,
  printRestartCounts,
  ReplyTally,
  type RestartSignal,
  restartTestEnv,
  signalAndRestart,
} from '../testing/restart-harness.ts';

const TOKEN = 'restart-test-token-0123456789';
const MESSAGES = 100;
const CONVERSATIONS = 5;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)),
  ]);
}

describe.each<RestartSignal>(['SIGTERM', 'SIGKILL'])(
  'the web chat across a %s in the middle of a burst',
  (signal) => {
    it('answers each of 100 messages in 5 conversations exactly once after the restart', async () => {
      const model: ScriptedModelServer = await startScriptedModelServer();
      cleanups.push(() => model.close());
      // Two chunks 100 ms apart: with the shutdown deadline below, SIGTERM finds turns it must abort.
      answerWithMarkers(model, { chunkDelayMs: 100 });
      const dataDir = await createRestartDataDir();
      cleanups.push(() => dataDir.remove());
      const env = restartTestEnv({
        model,
        dataDir: dataDir.path,
        env: {
          NEXUS_WEB_TOKEN: TOKEN,
          NEXUS_SHUTDOWN_DEADLINE_MS: '1500',
        },
      });
      let gateway: GatewayProcess = await startGatewayProcess(env);
      cleanups.push(() => gateway.stop(2000));

      const markers = Array.from({ length: MESSAGES }, (_, index) => messageMarker('web', index));
      const tally = new ReplyTally(markers);
      // Every reply.end frame, ids ignored: how often a reply went out twice at all.
      const frames = new ReplyTally(markers);
      const client = new ResendingWebClient({
        token: TOKEN,
        clientId: 'restart-client',
        onReply: (reply) => {
          tally.record(reply.text, reply.replyId);
          frames.record(reply.text);
        },
      });
      cleanups.push(() => client.close());
      await client.connect(gateway.url);

      const send = (index: number) =>
        client.send(
          `cm-${index}`,
          `conversation-${index % CONVERSATIONS}`,
          `please answer ${markers[index]}`,
        );
      for (let index = 0; index < 60; index++) {
        send(index);
        await pause(5);
      }
      // The signal goes the moment the 15th reply arrives: for SIGKILL that is the worst case,
      // the process is often between handing that reply to the socket and storing the turn, so
      // it runs again after the restart and goes out a second time under the same reply id.
      await within(tally.whenAnswered(15), 30_000, 'the first answers');
      const answeredBeforeSignal = tally.answeredCount();
      const restarted = signalAndRestart(gateway, signal, env);
      // The rest of the burst meets a stopping (or dead) gateway: refused as retryable or lost on
      // the wire, so the client keeps them and sends them again to the next process.
      for (let index = 60; index < MESSAGES; index++) {
        send(index);
        await pause(5);
      }
      const { exit, next } = await restarted;
      gateway = next;
      await client.whenClosed();
      await client.connect(gateway.url);

      await within(tally.whenAnswered(MESSAGES), 60_000, 'every answer').catch((error: unknown) => {
        throw new Error(`${String(error)}; counts ${JSON.stringify(tally.counts())}`);
      });
      // Room for a second answer to any message to show up before counting.
      await pause(1500);
      const counts = tally.counts();
      const frameCounts = frames.counts();
      const replay = loggedEntries(gateway, 'replaying unfinished messages from the inbox')[0];
      printRestartCounts('web', signal, counts, {
        // Messages whose reply.end went out twice (a turn run again: the crash fell between the
        // channel taking the reply and the commit); the client shows it once, by reply id.
        replyFramesDuplicated: frameCounts.duplicated,
        answeredBeforeSignal,
        replayedFromInbox: replay?.replayed ?? 0,
        abortedReplies: client.abortedReplies,
        resentDuplicates: client.duplicatesAccepted,
        modelCalls: model.chatRequests().length,
      });

      expect(client.refusals).toEqual([]);
      expect(counts.missing).toEqual([]);
      expect(counts).toMatchObject({ sent: MESSAGES, answered: MESSAGES, duplicated: 0, stray: 0 });
      // Any reply sent twice is the same reply (same id), never a second, different answer.
      expect(frameCounts.duplicated).toBeLessThanOrEqual(counts.repeatedReplies);
      if (signal === 'SIGTERM') {
        // A graceful stop has no window: every reply went out once.
        expect(frameCounts.duplicated).toBe(0);
        expect(exit).toBe(0);
      }
    }, 150_000);
  },
);
