import { z } from 'zod';
import type { SettingDefinition } from './setting-definition.ts';
import { positiveInt } from './setting-schemas.ts';

/** A daily token allowance, or `off` (null) for none. */
const dailyTokens = z.union([
  z.literal('off').transform(() => null),
  z.coerce.number().int().min(1).max(1_000_000_000),
]);

/**
 * What one message and one process may spend: model calls and input and output tokens per
 * message, tokens per person and per group per day, replies at once, queued messages, history in the prompt and the shutdown grace.
 * Part of the settings table (`settings.ts`), in its order.
 */
export const TURN_LIMIT_SETTINGS = [
  {
    env: 'NEXUS_MESSAGE_MAX_MODEL_CALLS',
    path: 'cost.maxModelCallsPerMessage',
    schema: z.coerce.number().int().min(1).max(1000),
    defaultValue: 12,
    description:
      'Most model requests one inbound message may cause, over every step, tool round, retry and subagent (nested ones too). At the cap the reply stops with what was generated and a short note. A plain answer takes 1, a tool round 2–3, a delegation of three tasks about 9.',
    hint: 'set it to a whole number between 1 and 1000, e.g. 12',
  },
  {
    env: 'NEXUS_MESSAGE_MAX_OUTPUT_TOKENS',
    path: 'cost.maxOutputTokensPerMessage',
    schema: z.coerce.number().int().min(1).max(1_000_000),
    defaultValue: 8000,
    description:
      'Most output tokens one inbound message may cause, over all its model requests (subagents included); each request may generate only what is left.',
    hint: 'set it to a whole number between 1 and 1000000, e.g. 8000',
  },
  {
    env: 'NEXUS_MESSAGE_MAX_INPUT_TOKENS',
    path: 'cost.maxInputTokensPerMessage',
    schema: z.coerce.number().int().min(1).max(100_000_000),
    defaultValue: 100_000,
    description:
      'Most input tokens one inbound message may cause, over all its model requests (subagents included): each request re-sends the prompt (instructions, history, memory, tool results, documents and images), as the provider reports it (estimated when it reports none). At the cap no further request is made and the reply says so; one request may overrun it by its own input.',
    hint: 'set it to a whole number between 1 and 100000000, e.g. 100000',
  },
  {
    env: 'NEXUS_DAILY_TOKENS_PER_PERSON',
    path: 'cost.dailyTokensPerPerson',
    schema: dailyTokens,
    defaultValue: 500_000,
    description:
      'Input plus output tokens one person may use per day (UTC), counted over all their channels, the web chat and groups included, and kept in `<dataDir>/token-budget.sqlite`. Over it, messages get a reply saying when it resets, without a model call; commands still work. `off`: no daily limit per person.',
    hint: 'set it to a whole number of tokens such as 500000, or off for no daily limit per person',
  },
  {
    env: 'NEXUS_DAILY_TOKENS_PER_GROUP',
    path: 'cost.dailyTokensPerGroup',
    schema: dailyTokens,
    defaultValue: 1_000_000,
    description:
      "Input plus output tokens one group conversation may use per day (UTC), over all its members: members of an allowed group need no approval of their own, so this bounds what a busy (or hostile) group can spend. Each member's personal limit applies too. `off`: no daily limit per group.",
    hint: 'set it to a whole number of tokens such as 1000000, or off for no daily limit per group',
  },
  {
    env: 'NEXUS_MAX_CONCURRENT_TURNS',
    path: 'core.maxConcurrentTurns',
    schema: positiveInt,
    defaultValue: 32,
    description:
      'Replies generated at the same time across all conversations (one at a time per conversation).',
    hint: 'set it to a positive integer such as 32',
  },
  {
    env: 'NEXUS_MAX_QUEUED_PER_CONVERSATION',
    path: 'core.maxQueuedPerConversation',
    schema: positiveInt,
    defaultValue: 100,
    description: 'Messages waiting in one conversation before new ones are refused as rate-limited.',
    hint: 'set it to a positive integer such as 100',
  },
  {
    env: 'NEXUS_HISTORY_TOKEN_BUDGET',
    path: 'core.historyTokenBudget',
    schema: positiveInt,
    defaultValue: 3000,
    description: 'Tokens of earlier conversation turns included in each prompt (newest first).',
    hint: 'set it to a positive integer such as 3000',
  },
  {
    env: 'NEXUS_SHUTDOWN_DEADLINE_MS',
    path: 'core.shutdownDeadlineMs',
    schema: positiveInt,
    defaultValue: 8000,
    description: 'On SIGTERM, how long in-flight replies may finish before they are aborted.',
    hint: 'set it to a positive number of milliseconds such as 8000',
  },
] as const satisfies readonly SettingDefinition[];
