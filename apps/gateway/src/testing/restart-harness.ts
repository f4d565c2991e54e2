import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatCompletionMessage, ScriptedModelServer } from '@nexus/testkit/llm';
import { type GatewayProcess, startGatewayProcess } from './gateway-process.ts';

/**
 * Pieces of a restart test, shared by every channel's: a gateway process answering from the
 * scripted model, each message carrying a marker the model puts into its answer, a tally of
 * answers per marker, and a signal in the middle of the burst followed by a start on the same
 * data directory. Only the channel's own client (web socket, fake Telegram, ...) differs.
 */

export type RestartSignal = 'SIGTERM' | 'SIGKILL';

/** `m-<label>-<n>`: unique per message, found again in the reply text. */
const MARKER = /\bm-[a-z0-9]+-\d+\b/;

export function messageMarker(label: string, index: number): string {
  return `m-${label}-${index}`;
}

export function markerIn(text: string): string | undefined {
  return MARKER.exec(text)?.[0];
}

/**
 * The scripted model answers `answer <marker>` for the marker in the newest user message, in
 * two chunks `chunkDelayMs` apart: slow enough that a burst is still in flight at the signal.
 */
export function answerWithMarkers(model: ScriptedModelServer, options: { chunkDelayMs?: number } = {}): void {
  model.setResponder((request) => {
    const newestUser = [...request.messages].reverse().find((message) => message.role === 'user');
    const marker = (newestUser && markerIn(messageText(newestUser))) ?? 'no-marker';
    return { chunks: ['answer ', marker], chunkDelayMs: options.chunkDelayMs ?? 40 };
  });
}

function messageText(message: ChatCompletionMessage): string {
  if (typeof message.content === 'string') return message.content;
  return (message.content ?? []).map((part) => part.text ?? '').join('');
}

export interface RestartTestSettings {
  model: ScriptedModelServer;
  dataDir: string;
  /** More NEXUS_* settings, e.g. a channel's token and its fake's URL. */
  env?: Record<string, string>;
}

/** The environment of a gateway under a restart test: scripted model, no extraction, roomy web limits. */
export function restartTestEnv(settings: RestartTestSettings): Record<string, string> {
  return {
    NEXUS_DATA_DIR: settings.dataDir,
    NEXUS_MODEL_PROVIDER: 'openai-compatible',
    NEXUS_MODEL_BASE_URL: settings.model.baseUrl,
    NEXUS_MODEL: 'scripted',
    // Extraction would add model calls that carry no marker and are not what is counted here.
    NEXUS_MEMORY_EXTRACTION: 'false',
    NEXUS_WEB_MESSAGES_PER_MINUTE: '10000',
    NEXUS_LOG_LEVEL: 'info',
    ...settings.env,
  };
}

export async function createRestartDataDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'nexus-restart-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Sends `signal` and waits for the process to end (SIGTERM: its graceful stop, SIGKILL after
 * `graceMs`), then starts a new gateway on the same data directory and the same settings.
 */
export async function signalAndRestart(
  gateway: GatewayProcess,
  signal: RestartSignal,
  env: Record<string, string>,
  graceMs = 20_000,
): Promise<{ exit: number | string; next: GatewayProcess }> {
  const exit = signal === 'SIGTERM' ? await gateway.stop(graceMs) : await killNow(gateway);
  return { exit, next: await startGatewayProcess(env) };
}

async function killNow(gateway: GatewayProcess): Promise<number | string> {
  if (gateway.isAlive()) gateway.child.kill('SIGKILL');
  return gateway.exited;
}

/** How many times each message was answered. */
export class ReplyTally {
  readonly markers: readonly string[];
  readonly #answers = new Map<string, number>();
  readonly #replyIds = new Set<string>();
  #repeated = 0;
  readonly #waiters = new Set<{ count: number; resolve: () => void }>();

  constructor(markers: readonly string[]) {
    this.markers = markers;
    for (const marker of markers) this.#answers.set(marker, 0);
  }

  /**
   * Counts one reply. A `replyId` seen before is the same answer delivered again (a turn run
   * again after a crash, under its stable reply id): counted as `repeatedReplies`, not as a
   * second answer, because a client that knows the id shows it once. A text without a known
   * marker is counted under `stray`.
   */
  record(text: string, replyId?: string): void {
    if (replyId !== undefined) {
      if (this.#replyIds.has(replyId)) {
        this.#repeated += 1;
        return;
      }
      this.#replyIds.add(replyId);
    }
    const marker = markerIn(text);
    const key = marker !== undefined && this.#answers.has(marker) ? marker : 'stray';
    this.#answers.set(key, (this.#answers.get(key) ?? 0) + 1);
    const answered = this.answeredCount();
    for (const waiter of this.#waiters) {
      if (answered >= waiter.count) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  answeredCount(): number {
    return this.markers.filter((marker) => (this.#answers.get(marker) ?? 0) > 0).length;
  }

  /** Resolves once `count` different messages were answered. */
  whenAnswered(count: number): Promise<void> {
    if (this.answeredCount() >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.add({ count, resolve }));
  }

  counts(): RestartCounts {
    const times = this.markers.map((marker) => this.#answers.get(marker) ?? 0);
    return {
      sent: this.markers.length,
      answered: times.filter((count) => count > 0).length,
      duplicated: times.filter((count) => count > 1).length,
      missing: this.markers.filter((marker) => (this.#answers.get(marker) ?? 0) === 0),
      duplicates: this.markers.filter((marker) => (this.#answers.get(marker) ?? 0) > 1),
      stray: this.#answers.get('stray') ?? 0,
      repeatedReplies: this.#repeated,
    };
  }
}

export interface RestartCounts {
  sent: number;
  /** Messages answered at least once. */
  answered: number;
  /** Messages answered more than once. */
  duplicated: number;
  missing: string[];
  /** The messages answered more than once. */
  duplicates: string[];
  /** Replies that named no message of this burst. */
  stray: number;
  /** Replies delivered again under a reply id already seen (only counted when ids are given). */
  repeatedReplies: number;
}

/** One JSON line per run, for the note that reports the counts per channel. */
export function printRestartCounts(
  channel: string,
  signal: RestartSignal,
  counts: RestartCounts,
  extra: Record<string, unknown> = {},
): void {
  const { missing, duplicates, ...numbers } = counts;
  console.log(
    JSON.stringify({
      restartTest: channel,
      signal,
      ...numbers,
      missing: missing.length,
      ...(duplicates.length > 0 ? { duplicates } : {}),
      ...extra,
    }),
  );
}

/** Counts the lines a gateway process logged with this message (e.g. the inbox replay). */
export function loggedEntries(gateway: GatewayProcess, message: string): Record<string, unknown>[] {
  return gateway.output.flatMap((line) => {
    if (!line.includes(`"msg":"${message}"`)) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
