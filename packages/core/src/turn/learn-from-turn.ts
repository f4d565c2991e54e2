import type { Logger } from '@nexus/protocol';
import { enqueueAfterTurn } from '../memory/context/turn-memory.ts';
import type { TurnSoFar } from './turn-so-far.ts';
import type { TurnDependencies, TurnRevision } from './turn-types.ts';

/**
 * After a stored turn: the memory jobs (extraction, summary), only for an answer the model gave to
 * words the person wrote. A refusal, an error or a reply about unusable attachments teaches nothing.
 */
export async function learnFromTurn(options: {
  turn: TurnSoFar;
  conversationKey: string;
  revision: TurnRevision | undefined;
  dependencies: Pick<TurnDependencies, 'memory' | 'agent'>;
  logger: Logger;
}): Promise<void> {
  const { turn, revision } = options;
  const { memory, agent } = options.dependencies;
  if (
    turn.failure ||
    turn.reply.budgetExhausted === 'daily_tokens' ||
    turn.media?.problemsOnly ||
    !memory ||
    !agent.configured ||
    turn.intent.text.trim() === ''
  )
    return;
  await enqueueAfterTurn({
    memory,
    intent: turn.intent,
    conversationKey: options.conversationKey,
    replyText: turn.reply.text,
    logger: options.logger,
    ...(revision
      ? {
          revision: {
            kind: 'edit' as const,
            messageIntentId: revision.targetIntentId,
            ...(revision.previousUserText === undefined
              ? {}
              : { previousUserText: revision.previousUserText }),
          },
        }
      : {}),
  });
}
