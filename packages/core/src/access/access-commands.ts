import { type Intent, NexusError } from '@nexus/protocol';
import type { AccessDecision, AccessMemoryPort } from './access-decision.ts';
import { ACCESS_MESSAGES } from './access-messages.ts';
import type { ResolvedAccessOptions } from './access-options.ts';
import { forgetPerson } from './forget-person.ts';
import type { Identity } from './identity-store.ts';
import { enterLinkCode, issueLinkCode } from './link-flow.ts';
import type { NoticeThrottle } from './notice-throttle.ts';
import type { ParsedCommand } from './parse-command.ts';
import { replyWith } from './reply-with.ts';

const SHOWN_MEMORIES = 30;
const LISTED_MEMORIES = 500;
const SHOWN_CHARS = 300;

export interface CommandContext {
  options: ResolvedAccessOptions;
  throttle: NoticeThrottle;
  /** Person id → when their `/forget-me` stops waiting for `/forget-me confirm`. */
  forgetPending: Map<string, number>;
}

/**
 * Commands from someone the assistant may answer, with `intent.userId` already the person. Work that
 * must keep its place among the conversation's turns (`/new`, `/forget-me confirm`, memory reads)
 * runs inside the reply, which core calls in the conversation's lane.
 */
export function runCommand(
  context: CommandContext,
  intent: Intent,
  identity: Identity,
  command: ParsedCommand,
): AccessDecision {
  const { options } = context;
  const direct = intent.conversation.kind === 'direct';
  if (command.name === 'help') return replyWith(intent, ACCESS_MESSAGES.help(direct));
  if (command.name === 'new') {
    const conversationKey = `${intent.channel}:${intent.conversation.id}`;
    return replyWith(intent, async () => {
      options.store.conversations.startNew(conversationKey);
      return ACCESS_MESSAGES.newConversation();
    });
  }
  if (!direct) return replyWith(intent, ACCESS_MESSAGES.directOnly(command.name));
  if (command.name === 'link') {
    if (command.argument === '') return issueLinkCode(options, intent, identity);
    return enterLinkCode(options, context.throttle, intent, identity, command.argument);
  }
  const memory = options.memory;
  if (command.name === 'memories') {
    if (!memory) return replyWith(intent, ACCESS_MESSAGES.memoryOff());
    return replyWith(intent, ({ abortSignal }) => listMemories(memory, intent.userId, abortSignal));
  }
  // Without memory there are still turns, jobs and account records to forget.
  return forgetMe(context, intent, command.argument.toLowerCase() === 'confirm');
}

async function listMemories(memory: AccessMemoryPort, userId: string, abortSignal: AbortSignal) {
  const memories = await memory
    .list({ userId, limit: LISTED_MEMORIES, abortSignal })
    .catch((error: unknown) => unavailable(error));
  if (memories.length === 0) return ACCESS_MESSAGES.memoriesEmpty();
  const lines = memories.slice(0, SHOWN_MEMORIES).map((item) => {
    const content = item.content.replace(/\s+/g, ' ').trim();
    return content.length > SHOWN_CHARS ? `${content.slice(0, SHOWN_CHARS - 1)}…` : content;
  });
  return ACCESS_MESSAGES.memories(lines, memories.length - lines.length);
}

function forgetMe(context: CommandContext, intent: Intent, confirmed: boolean): AccessDecision {
  const { options, forgetPending } = context;
  const now = options.now();
  const userId = intent.userId;
  if (!confirmed) {
    for (const [key, expiresAt] of forgetPending) if (expiresAt <= now) forgetPending.delete(key);
    forgetPending.set(userId, now + options.forgetConfirmMs);
    return replyWith(intent, ACCESS_MESSAGES.forgetConfirm(options.forgetConfirmMs));
  }
  const pendingUntil = forgetPending.get(userId);
  if (pendingUntil === undefined || pendingUntil <= now) {
    return replyWith(intent, ACCESS_MESSAGES.forgetNothingPending());
  }
  forgetPending.delete(userId);
  return replyWith(intent, async ({ abortSignal }) => {
    const report = await forgetPerson({
      store: options.store,
      ...(options.memory ? { memory: options.memory } : {}),
      erasers: options.erasers,
      userId,
      abortSignal,
      logger: options.logger,
    });
    return ACCESS_MESSAGES.forgotten(report.removed);
  });
}

function unavailable(error: unknown): never {
  throw new NexusError({
    code: 'memory_unavailable',
    message: 'I could not reach my memory just now. Please try again in a moment.',
    retryable: true,
    cause: error,
  });
}
