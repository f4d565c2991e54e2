import type { Logger, ReplyEvent, ReplyMedia, ReplyMediaKind } from '@nexus/protocol';
import { budgetNote } from '../cost/budget-note.ts';
import type { BudgetStopReason, TurnBudget, TurnLimits } from '../cost/turn-budget.ts';
import { mediaPrefix } from '../media/media-prefix.ts';
import { toolsForTurn } from '../tools/create-turn-tools.ts';
import { firstAbortOf } from './first-abort.ts';
import { historyWithinBudget } from './history-within-budget.ts';
import type { TurnContext } from './load-turn-context.ts';
import type { ReplyStream } from './reply-stream.ts';
import { ReplyStoppedByPerson } from './running-replies.ts';
import type { ReplyDraft, TurnSoFar } from './turn-so-far.ts';
import type { TurnDependencies } from './turn-types.ts';

/**
 * Agent: history within its token budget, the turn's tools, and the model's reply streamed to
 * the channel as ReplyEvents while it is produced. `turn.reply` is filled as it goes; a budget
 * cap that cuts the reply short adds an honest note.
 */
export async function streamAgentReply(options: {
  turn: Pick<TurnSoFar, 'intent' | 'media' | 'reply'>;
  context: TurnContext;
  budget: TurnBudget;
  events: ReplyStream;
  conversationKey: string;
  /** Aborted when the person presses Stop: the reply ends with what they were shown. */
  stopSignal?: AbortSignal;
  /** The file kinds the channel sends (capabilities.mediaOut); any other is named in the text. */
  mediaOut: readonly ReplyMediaKind[];
  dependencies: Pick<
    TurnDependencies,
    | 'agent'
    | 'memory'
    | 'subagents'
    | 'outsideTools'
    | 'historyTokenBudget'
    | 'turnLimits'
    | 'now'
    | 'shutdownSignal'
    | 'tracing'
  >;
  logger: Logger;
}): Promise<void> {
  const { turn, context, budget, events, conversationKey, dependencies } = options;
  const { intent, media, reply } = turn;
  const { agent, memory } = dependencies;
  const history = historyWithinBudget({
    turns: context.turns,
    tokenBudget: dependencies.historyTokenBudget,
    tokenCounter: context.tokenCounter,
  });
  const tools = toolsForTurn({
    ...(memory ? { memory } : {}),
    ...(dependencies.subagents ? { subagents: dependencies.subagents } : {}),
    agent,
    budget,
    intent,
    outside: dependencies.outsideTools?.({ intent, conversationKey }),
    sessionId: conversationKey,
    tokenCounter: context.tokenCounter,
    now: dependencies.now,
    logger: options.logger,
    tracer: dependencies.tracing?.tracer,
  });
  const push = (event: ReplyEvent) => events.push(event);
  const start = () => {
    if (reply.started) return;
    reply.started = true;
    push({ type: 'reply.start', replyId: reply.replyId });
  };
  // What the person is shown first: what was heard, and what could not be used.
  const prefix = media ? mediaPrefix(media) : '';
  if (prefix !== '') {
    start();
    push({ type: 'reply.delta', replyId: reply.replyId, text: prefix });
  }
  const memoryBlock = context.memoryStep?.block;
  const stopSignal = options.stopSignal;
  // Stop or shutdown, whichever comes first; the listeners go once the run is over.
  const following = stopSignal ? firstAbortOf([dependencies.shutdownSignal, stopSignal]) : undefined;
  const abortSignal = following?.signal ?? dependencies.shutdownSignal;
  const unsendable: string[] = [];
  try {
    for await (const part of agent.run({
      history: history.messages,
      userText: intent.text,
      ...(media && media.images.length > 0 ? { userImages: media.images } : {}),
      ...(media && media.documents.length > 0 ? { userDocuments: media.documents } : {}),
      userId: intent.userId,
      ...(memoryBlock ? { systemContext: memoryBlock } : {}),
      ...(tools ? { tools } : {}),
      abortSignal,
      budget,
    })) {
      // A status (waiting for a worker) is shown as it comes, before the reply rather than inside it.
      if (part.type === 'status') {
        push({ type: 'status', text: part.text });
        continue;
      }
      start();
      if (part.type === 'text-delta') {
        reply.firstDeltaAt ??= dependencies.now();
        if (reply.text === '') reply.text = prefix;
        reply.text += part.text;
        push({ type: 'reply.delta', replyId: reply.replyId, text: part.text });
      } else if (part.type === 'media') {
        if (options.mediaOut.includes(part.media.kind)) sendMedia(reply, part.media, push);
        // Sent anyway it would vanish on this platform: the reply's end tells what they miss.
        else unsendable.push(unsendableMediaLine(part.media));
      } else {
        reply.text = prefix + part.text;
        if (part.stopped) addBudgetNote(reply, part.stopped, dependencies.turnLimits, push);
      }
    }
  } catch (error) {
    if (!stopSignal?.aborted || dependencies.shutdownSignal.aborted) throw error;
    endStopped(reply, stopSignal.reason, push, start);
    return;
  } finally {
    following?.dispose();
  }
  if (unsendable.length > 0) appendLines(reply, prefix, unsendable, { push, start });
  if (!reply.started) push({ type: 'reply.start', replyId: reply.replyId });
  push({ type: 'reply.end', replyId: reply.replyId, text: reply.text });
}

/**
 * The person pressed Stop: the reply keeps what they had been shown (their client says how much;
 * without it, what was generated), so history, the bill and memory hold exactly that.
 */
function endStopped(
  reply: ReplyDraft,
  reason: unknown,
  push: (event: ReplyEvent) => void,
  start: () => void,
): void {
  const shownChars = reason instanceof ReplyStoppedByPerson ? reason.shownChars : undefined;
  if (shownChars !== undefined && shownChars < reply.text.length)
    reply.text = reply.text.slice(0, shownChars);
  reply.stopped = true;
  start();
  push({ type: 'reply.end', replyId: reply.replyId, text: reply.text, stopped: true });
}

/** Cut short by the message's caps: what was generated stays, with an honest note. */
function addBudgetNote(
  reply: ReplyDraft,
  stopped: BudgetStopReason,
  limits: TurnLimits,
  push: (event: ReplyEvent) => void,
): void {
  reply.budgetExhausted = stopped;
  const note = budgetNote(stopped, limits, reply.text);
  push({ type: 'reply.delta', replyId: reply.replyId, text: note });
  reply.text += note;
}

function sendMedia(reply: ReplyDraft, media: ReplyMedia, push: (event: ReplyEvent) => void): void {
  push({ type: 'reply.media', replyId: reply.replyId, media });
  reply.mediaNames.push(media.name);
}

/** Lines added after the model's text, shown and stored as part of the reply. */
function appendLines(
  reply: ReplyDraft,
  prefix: string,
  lines: string[],
  { push, start }: { push: (event: ReplyEvent) => void; start: () => void },
): void {
  if (reply.text === '') reply.text = prefix;
  start();
  const text = `${reply.text === '' ? '' : '\n\n'}${lines.join('\n')}`;
  reply.text += text;
  push({ type: 'reply.delta', replyId: reply.replyId, text });
}

/** The line that stands in for a reply file the channel cannot send. */
function unsendableMediaLine(media: ReplyMedia): string {
  const kinds = { image: 'images', audio: 'audio files', file: 'files' } as const;
  return `(I made "${media.name}", but this chat cannot receive ${kinds[media.kind]}.)`;
}
