import type { Intent } from '@nexus/protocol';
import type { AccessDecision } from '../access/access-decision.ts';
import { ACCESS_MESSAGES } from '../access/access-messages.ts';
import type { ResolvedAccessOptions } from '../access/access-options.ts';
import type { NoticeThrottle } from '../access/notice-throttle.ts';
import { replyWith } from '../access/reply-with.ts';
import type { Identity } from '../identity/identity-store.ts';
import { groupMemoryId } from '../memory/memory-subject.ts';
import { type ForgetRequest, forgetMe } from './forget-me.ts';
import { enterLinkCode, issueLinkCode } from './link-flow.ts';
import { forgetOneMemory, listMemoryPage, type MemoryListings } from './memory-commands.ts';
import type { ParsedCommand } from './parse-command.ts';
import { startGreeting } from './start-greeting.ts';

export interface CommandContext {
  options: ResolvedAccessOptions;
  throttle: NoticeThrottle;
  /** Account (`<channel>:<platform id>`) → its pending `/forget-me`. */
  forgetPending: Map<string, ForgetRequest>;
  /** What each memory owner's last `/memories` page numbered, for `/forget <n>`. */
  listings: MemoryListings;
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
  if (command.name === 'start') return startGreeting(intent, options.memory);
  if (command.name === 'new') {
    const conversationKey = `${intent.channel}:${intent.conversation.id}`;
    return replyWith(intent, async () => {
      options.store.conversations.startNew(conversationKey);
      return ACCESS_MESSAGES.newConversation();
    });
  }
  if (!direct && (command.name === 'memories' || command.name === 'forget')) {
    // In a group: the group's own memory, which its members share; never the speaker's.
    const memory = options.memory;
    if (!memory) return replyWith(intent, ACCESS_MESSAGES.memoryOff());
    const ownerId = groupMemoryId(intent.channel, intent.conversation.id);
    const request = { intent, memory, listings: context.listings, ownerId, argument: command.argument };
    return command.name === 'memories'
      ? listMemoryPage({ ...request, whose: 'group' })
      : forgetOneMemory(request);
  }
  if (!direct) return replyWith(intent, ACCESS_MESSAGES.directOnly(command.name));
  if (command.name === 'link') {
    if (command.argument === '') return issueLinkCode(options, intent, identity);
    return enterLinkCode(options, context.throttle, intent, identity, command.argument);
  }
  const memory = options.memory;
  if (command.name === 'memories' || command.name === 'forget') {
    if (!memory) return replyWith(intent, ACCESS_MESSAGES.memoryOff());
    const request = {
      intent,
      memory,
      listings: context.listings,
      ownerId: intent.userId,
      argument: command.argument,
    };
    return command.name === 'memories'
      ? listMemoryPage({ ...request, whose: 'person' })
      : forgetOneMemory(request);
  }
  // Without memory there are still turns, jobs and account records to forget.
  return forgetMe(
    options,
    context.forgetPending,
    intent,
    identity,
    command.argument.toLowerCase() === 'confirm',
  );
}
