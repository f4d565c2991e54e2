import { type GatewayProcess, startGatewayProcess } from './gateway-process.ts';
import { ReplyTally, type RestartCounts, type RestartSignal, signalAndRestart } from './restart-harness.ts';

/**
 * Rate limits roomy enough for a burst of 100 from a few people: the defaults (60 at once across
 * everyone) would refuse part of it for good, which is access policy, not what is measured here.
 */
export const BURST_RATE_LIMITS: Record<string, string> = {
  NEXUS_RATE_LIMIT_PER_MINUTE: '10000',
  NEXUS_RATE_LIMIT_BURST: '10000',
  NEXUS_GLOBAL_RATE_LIMIT_PER_MINUTE: '10000',
  NEXUS_GLOBAL_RATE_LIMIT_BURST: '10000',
};

export interface PlatformBurstOptions {
  signal: RestartSignal;
  env: Record<string, string>;
  markers: readonly string[];
  /** Sends message `index` (its marker is `markers[index]`) through the platform fake. */
  send(index: number): void;
  /** Final texts of every reply the fake holds now (edited drafts count once, as they read). */
  replyTexts(): string[];
  /** The burst starts once this holds, e.g. the gateway's platform connection is up. */
  ready?: () => boolean;
  /** The signal goes out once this many messages were sent; the rest are sent while the gateway is down. */
  signalAfter: number;
  /** Pause between two messages of the burst; 0 sends the first part all at once. */
  gapMs?: number;
  /**
   * Once the first part is sent, the signal waits for this (checked every turn of the event
   * loop), e.g. "the platform handed the batch over", to land inside the intake window.
   */
  signalWhen?: () => boolean;
  /** Once everything is answered, how long to keep watching for a late second answer. */
  quietMs?: number;
  timeoutMs?: number;
}

export interface PlatformBurstResult {
  counts: RestartCounts;
  exit: number | string;
  restarted: GatewayProcess;
}

/**
 * A burst through a platform fake that lives in the test process: messages go out one after
 * another, the gateway gets `signal` in the middle, a new gateway starts on the same data
 * directory while the rest of the burst keeps arriving at the platform, and every reply the
 * platform holds is tallied by marker once all were answered (and a quiet period passed).
 */
export async function runPlatformBurst(options: PlatformBurstOptions): Promise<PlatformBurstResult> {
  const gapMs = options.gapMs ?? 15;
  const first = await startGatewayProcess(options.env);
  const deadline = Date.now() + (options.timeoutMs ?? 45_000);
  while (options.ready && !options.ready() && Date.now() < deadline) await pause(20);
  for (let index = 0; index < options.signalAfter; index += 1) {
    options.send(index);
    if (gapMs > 0) await pause(gapMs);
  }
  while (options.signalWhen && !options.signalWhen() && Date.now() < deadline) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  const restarting = signalAndRestart(first, options.signal, options.env);
  for (let index = options.signalAfter; index < options.markers.length; index += 1) {
    options.send(index);
    await pause(Math.max(gapMs, 5));
  }
  const { exit, next } = await restarting;
  const tally = () => {
    const counting = new ReplyTally(options.markers);
    for (const text of options.replyTexts()) counting.record(text);
    return counting.counts();
  };
  while (tally().answered < options.markers.length && Date.now() < deadline) await pause(100);
  await pause(options.quietMs ?? 1_500);
  return { counts: tally(), exit, restarted: next };
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
