import type { TokenCounter } from '@nexus/limits-kit';
import type { Intent, Logger } from '@nexus/protocol';
import type { MemoryStepResult } from '../memory/context/run-memory-step.ts';
import { loadTurnMemory } from '../memory/context/turn-memory.ts';
import type { StoredTurn } from '../session-store/session-store.ts';
import type { ReplyStream } from './reply-stream.ts';
import type { TurnDependencies, TurnRevision } from './turn-types.ts';

/** What the model is given besides the message: earlier turns and the memory block. */
export interface TurnContext {
  turns: StoredTurn[];
  tokenCounter: TokenCounter;
  /** Absent when no memory is configured. */
  memoryStep?: MemoryStepResult;
}

/**
 * Memory: history and the token counter, and the memory step as soon as both are there, under
 * its own deadline. A slow memory step shows the person its status text meanwhile.
 */
export async function loadTurnContext(options: {
  intent: Intent;
  conversationKey: string;
  revision: TurnRevision | undefined;
  events: ReplyStream;
  dependencies: Pick<
    TurnDependencies,
    'sessionStore' | 'historyMaxTurns' | 'tokenCounter' | 'memory' | 'now' | 'shutdownSignal'
  >;
  logger: Logger;
  /** The memory step; the composer hands it in wrapped in its span. */
  loadMemory?: typeof loadTurnMemory;
}): Promise<TurnContext> {
  const { intent, conversationKey, revision, dependencies } = options;
  // Re-answering an edit: the exchange being replaced is not history; everything before it is.
  const history = dependencies.sessionStore.history({ conversationKey, limit: dependencies.historyMaxTurns });
  const historyLoaded =
    revision?.mode === 'rerun'
      ? history.then((loaded) => loaded.filter((turn) => turn.intentId !== revision.targetIntentId))
      : history;
  // The person's activity across channels and conversations, for "welcome back"; never blocks the turn.
  const personActivity = dependencies.sessionStore.markActive
    ? dependencies.sessionStore.markActive({ userId: intent.userId, at: dependencies.now() }).then(
        (lastActiveAt) => ({ lastActiveAt }),
        (error: unknown) => {
          options.logger.warn({ err: error }, 'person activity not recorded');
          return undefined;
        },
      )
    : Promise.resolve(undefined);
  const memory = dependencies.memory;
  if (!memory) {
    const [turns, tokenCounter] = await Promise.all([historyLoaded, dependencies.tokenCounter]);
    return { turns, tokenCounter };
  }
  const loadMemory = options.loadMemory ?? loadTurnMemory;
  // The memory step starts once history, the counter and the person's activity are in: the same
  // moment the turn's context is complete without it, so one wait serves both.
  const [turns, tokenCounter, activity] = await Promise.all([
    historyLoaded,
    dependencies.tokenCounter,
    personActivity,
  ]);
  const memoryStep = await loadMemory({
    memory,
    intent,
    conversationKey,
    turns,
    ...(activity ? { personActivity: activity } : {}),
    onSlow: () => options.events.push({ type: 'status', text: memory.statusText }),
    tokenCounter,
    now: dependencies.now,
    logger: options.logger,
    abortSignal: dependencies.shutdownSignal,
  });
  return { turns, tokenCounter, memoryStep };
}
