import type { Intent } from '@nexus/protocol';
import type { AccessDecision, AccessMemoryPort } from '../access/access-decision.ts';
import { ACCESS_MESSAGES } from '../access/access-messages.ts';
import { replyWith } from '../access/reply-with.ts';

/** Memories a known person's `/start` greeting names; a few, so it reads as a greeting, not a list. */
const GREETING_FACTS = 3;
const FACT_CHARS = 120;

/**
 * `/start`: a stranger (or a group, or memory off or unreachable) gets the introduction and the
 * commands; a person Nexus already knows is greeted as someone known, by a few things it
 * remembers about them, with how to see and delete the rest. Answered without the model.
 */
export function startGreeting(intent: Intent, memory: AccessMemoryPort | undefined): AccessDecision {
  const direct = intent.conversation.kind === 'direct';
  const introduction = `${ACCESS_MESSAGES.introduction(direct)}\n\n${ACCESS_MESSAGES.help(direct)}`;
  if (!direct || !memory) return replyWith(intent, introduction);
  return replyWith(intent, async ({ abortSignal }) => {
    // Unreachable memory is no reason to refuse a greeting: the introduction still holds.
    const known = await memory
      .list({ userId: intent.userId, scope: 'user', limit: GREETING_FACTS, abortSignal })
      .catch(() => []);
    if (known.length === 0) return introduction;
    const facts = known.map((memoryRow) => {
      const text = memoryRow.content.replace(/\s+/gu, ' ').trim();
      return text.length > FACT_CHARS ? `${text.slice(0, FACT_CHARS - 1)}…` : text;
    });
    return ACCESS_MESSAGES.welcomeBackKnown(intent.sender.displayName, facts);
  });
}
