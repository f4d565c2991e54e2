import type { ChannelAdapter, Intent } from '@nexus/protocol';
import { enqueueAfterTurn } from '../memory/context/turn-memory.ts';
import type { MessageLookup, RevisionChange, StoredTurn } from '../session-store/session-store.ts';
import { runTurn, type TurnDependencies, type TurnResult } from '../turn/run-turn.ts';
import { correctionNote } from './correction-note.ts';

/** What a revision did in its lane: a turn (an edit answered) or a change to history only. */
export type RevisionOutcome = { turn: TurnResult } | { change: RevisionChange['type'] };

/**
 * Applies an edit or delete in the conversation's lane, after every message accepted before it
 * (see docs/conversations.md). Only the author's own revisions count. An edit of the newest turn
 * answers again; an edit of an older one updates it and leaves a note in history; an edit of a
 * message never answered is answered as a new one. A delete removes the exchange from history.
 * Either way an extraction job reconsiders what memory learned from the message.
 */
export async function runRevision(
  intent: Intent,
  enqueuedAt: number,
  adapter: ChannelAdapter,
  dependencies: TurnDependencies,
): Promise<RevisionOutcome> {
  const revises = intent.revises;
  if (!revises) throw new Error('runRevision needs an intent that revises a message');
  const { sessionStore, logger } = dependencies;
  const target = revises.targetIntentId;
  const found = await sessionStore.lookUpMessage({ channel: intent.channel, intentId: target });
  const apply = async (change: RevisionChange): Promise<RevisionOutcome> => {
    await sessionStore.applyRevision({
      channel: intent.channel,
      intentId: intent.id,
      targetIntentId: target,
      kind: revises.kind === 'delete' ? 'delete' : 'edit',
      userId: intent.userId,
      change,
      createdAt: dependencies.now(),
    });
    return { change: change.type };
  };

  if (found.state === 'answered' && found.turn.userId !== intent.userId) {
    logger.warn({ intentId: intent.id, target }, 'revision of another person’s message ignored');
    return apply({ type: 'none', reason: 'not the author' });
  }
  if (revises.kind === 'delete') return deleteMessage(intent, found, apply, dependencies);
  if (found.state === 'deleted') return apply({ type: 'none', reason: 'message was deleted' });
  if (revises.kind === 'regenerate')
    return regenerate(intent, enqueuedAt, adapter, found, apply, dependencies);
  if (revises.kind === 'choose') return chooseVersion(intent, found, apply, dependencies);
  if (found.state === 'unknown')
    return {
      turn: await runTurn(intent, enqueuedAt, adapter, dependencies, { targetIntentId: target, mode: 'new' }),
    };
  const { turn } = found;
  if (intent.attachments.length === 0 && intent.text.trim() === turn.userText.trim())
    return apply({ type: 'none', reason: 'text unchanged' });
  if (found.latest) {
    return {
      turn: await runTurn(intent, enqueuedAt, adapter, dependencies, {
        targetIntentId: target,
        mode: 'rerun',
        previousUserText: turn.userText,
      }),
    };
  }
  return noteEdit(intent, turn, apply, dependencies);
}

/**
 * Another answer to a message (Regenerate, Try again). The newest answered turn runs again with
 * its stored words and its exchange is replaced (the earlier answer stays a version); a message
 * never answered (the turn failed before it was stored) is answered as new with the words the
 * channel sent. Only the newest exchange can be answered again: the ones after it answered it.
 */
async function regenerate(
  intent: Intent,
  enqueuedAt: number,
  adapter: ChannelAdapter,
  found: MessageLookup,
  apply: (change: RevisionChange) => Promise<RevisionOutcome>,
  dependencies: TurnDependencies,
): Promise<RevisionOutcome> {
  const target = intent.revises?.targetIntentId ?? '';
  if (found.state === 'unknown') {
    if (intent.text.trim() === '' && intent.attachments.length === 0)
      return apply({ type: 'none', reason: 'nothing to answer' });
    return {
      turn: await runTurn(intent, enqueuedAt, adapter, dependencies, { targetIntentId: target, mode: 'new' }),
    };
  }
  if (found.state !== 'answered' || !found.latest)
    return apply({ type: 'none', reason: 'only the newest answer can be regenerated' });
  const again: Intent = { ...intent, text: found.turn.userText };
  return {
    turn: await runTurn(again, enqueuedAt, adapter, dependencies, { targetIntentId: target, mode: 'rerun' }),
  };
}

/**
 * Brings an earlier version of a message's answer back into history in place of the one there
 * now: no model call and no reply; the model sees the chosen words from the next turn on.
 */
async function chooseVersion(
  intent: Intent,
  found: MessageLookup,
  apply: (change: RevisionChange) => Promise<RevisionOutcome>,
  dependencies: TurnDependencies,
): Promise<RevisionOutcome> {
  const replyId = intent.revises?.replyId;
  if (found.state !== 'answered' || replyId === undefined)
    return apply({ type: 'none', reason: 'no answer to choose from' });
  const version = await dependencies.sessionStore.replyVersion?.({
    channel: intent.channel,
    intentId: found.turn.intentId,
    replyId,
  });
  if (version === undefined) return apply({ type: 'none', reason: 'that version is not kept' });
  return apply({
    type: 'replace',
    turn: { ...version, conversationKey: found.turn.conversationKey, createdAt: dependencies.now() },
  });
}

/** An older message edited: no new reply, the stored text updated, a note where the edit happened. */
async function noteEdit(
  intent: Intent,
  turn: StoredTurn,
  apply: (change: RevisionChange) => Promise<RevisionOutcome>,
  dependencies: TurnDependencies,
): Promise<RevisionOutcome> {
  const counter = await dependencies.tokenCounter;
  const note = correctionNote(turn.userText, intent.text);
  const outcome = await apply({
    type: 'note',
    userText: intent.text,
    tokenCount: counter.count(intent.text) + counter.count(turn.replyText),
    note: {
      // In the edited turn's own history (its generation, should `/new` have started another).
      conversationKey: turn.conversationKey,
      channel: intent.channel,
      userId: intent.userId,
      intentId: intent.id,
      userText: note,
      replyText: '',
      outcome: 'ok',
      createdAt: dependencies.now(),
      tokenCount: counter.count(note),
    },
  });
  await reconsiderMemory(intent, dependencies, turn.replyText, {
    kind: 'edit',
    messageIntentId: turn.intentId,
    previousUserText: turn.userText,
  });
  return outcome;
}

async function deleteMessage(
  intent: Intent,
  found: MessageLookup,
  apply: (change: RevisionChange) => Promise<RevisionOutcome>,
  dependencies: TurnDependencies,
): Promise<RevisionOutcome> {
  if (found.state === 'deleted') return apply({ type: 'none', reason: 'already deleted' });
  // Recorded even when nothing was answered (an entry withdrawn before its turn): the message
  // stays deleted, so a redelivery of it is never answered.
  const outcome = await apply({ type: 'delete' });
  if (found.state === 'answered')
    await reconsiderMemory(intent, dependencies, '', {
      kind: 'delete',
      messageIntentId: found.turn.intentId,
    });
  return outcome;
}

/** Queues the extraction job of a revision that added no turn; never throws (see enqueueAfterTurn). */
async function reconsiderMemory(
  intent: Intent,
  dependencies: TurnDependencies,
  replyText: string,
  revision: { kind: 'edit' | 'delete'; messageIntentId: string; previousUserText?: string },
): Promise<void> {
  if (!dependencies.memory) return;
  await enqueueAfterTurn({
    memory: dependencies.memory,
    intent,
    conversationKey: `${intent.channel}:${intent.conversation.id}`,
    replyText,
    logger: dependencies.logger,
    revision,
    summary: false,
  });
}
