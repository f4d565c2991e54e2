import type { Logger } from '@nexus/protocol';
import { storedUserText } from '../media/media-prefix.ts';
import { learnFromTurn } from './learn-from-turn.ts';
import type { TurnSoFar } from './turn-so-far.ts';
import type { TurnDependencies, TurnRevision } from './turn-types.ts';

/**
 * Store: the turn written (and its inbox entry finished, same transaction) once the channel has
 * the reply, then the memory jobs. A turn stopped by shutdown, whose delivery was abandoned, or
 * whose job queue stayed unreachable, stays in the inbox for the next start; after a retryable failure only the inbox entry is
 * finished, so the person's resend is taken rather than called a duplicate.
 */
export async function storeTurnOutcome(options: {
  turn: TurnSoFar;
  conversationKey: string;
  revision: TurnRevision | undefined;
  finishedAt: number;
  /** The hard stop came before the channel had the whole reply. */
  abandoned: boolean;
  dependencies: Pick<TurnDependencies, 'sessionStore' | 'memory' | 'agent'>;
  logger: Logger;
}): Promise<void> {
  const { turn, conversationKey, revision, finishedAt, logger } = options;
  const { intent, failure, reply } = turn;
  const { sessionStore } = options.dependencies;
  // `queue_unavailable`: Redis stayed down past the operator's deadline; the message is kept, as
  // its error told the person, and the next start answers it.
  if (failure?.code === 'shutting_down' || failure?.code === 'queue_unavailable' || options.abandoned) {
    logger.info({}, 'turn left in the inbox for the next start');
    return;
  }
  // The model sees in later turns which files it sent, by name; the bytes are not kept.
  const storedReply =
    reply.mediaNames.length === 0
      ? reply.text
      : `${reply.text}\n[sent: ${reply.mediaNames.join(', ')}]`.trim();
  try {
    if (failure?.retryable === true) {
      // The person was told to try again; the resend must be taken, not called a duplicate.
      await sessionStore.finishIntent({ channel: intent.channel, intentId: intent.id });
      return;
    }
    const stored = {
      conversationKey,
      channel: intent.channel,
      userId: intent.userId,
      intentId: revision ? revision.targetIntentId : intent.id,
      userText: storedUserText(intent.text, turn.media),
      replyText: storedReply,
      outcome: failure ? ('error' as const) : ('ok' as const),
      createdAt: finishedAt,
      // Kept as a version of the answer to this message too, so the person can page back to it.
      replyId: reply.replyId,
      ...(turn.tokenCounter
        ? { tokenCount: turn.tokenCounter.count(intent.text) + turn.tokenCounter.count(storedReply) }
        : {}),
    };
    if (!revision) await sessionStore.appendTurn(stored);
    else
      await sessionStore.applyRevision({
        channel: intent.channel,
        intentId: intent.id,
        targetIntentId: revision.targetIntentId,
        kind: 'edit',
        userId: intent.userId,
        change: { type: revision.mode === 'rerun' ? 'replace' : 'insert', turn: stored },
        createdAt: finishedAt,
      });
  } catch (error) {
    logger.error({ err: error }, 'could not store the turn');
    return;
  }
  await learnFromTurn({ turn, conversationKey, revision, dependencies: options.dependencies, logger });
}
