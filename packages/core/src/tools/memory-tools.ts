import {
  describeMemoryAge,
  type Logger,
  type MemoryMetadataValues,
  type MemoryPort,
  memoryCategorySchema,
} from '@nexus/protocol';
import { type ToolSet, tool, zodSchema } from 'ai';
import { z } from 'zod';

// Built once: the SDK converts a schema to JSON Schema when it is first read and keeps the result,
// so per-turn tools reuse it instead of converting three schemas on every turn.
const REMEMBER_INPUT = zodSchema(
  z.object({
    content: z.string().trim().min(1).max(500),
    category: memoryCategorySchema.default('fact'),
  }),
);
const RECALL_INPUT = zodSchema(
  z.object({
    query: z.string().trim().min(1).max(1000),
    limit: z.number().int().min(1).max(20).default(5),
  }),
);
const FORGET_INPUT = zodSchema(z.object({ memory: z.union([z.string(), z.number()]) }));

/**
 * The memory service's partition of global memories (`GLOBAL_USER_ID` of @nexus/memory, which
 * core does not import): facts for everyone, kept apart from every person's own.
 */
const GLOBAL_PARTITION = '*';

export interface MemoryToolsOptions {
  memory: MemoryPort;
  /**
   * Whose memory: the person speaking in a direct chat, the group's memory id in a group. The tools
   * take no user id from the model: this one is the only one used.
   */
  userId: string;
  /** `group`: the tools speak of the group and tag what is stored with the speaker. Default `person`. */
  subject?: 'person' | 'group';
  /** Who asked, stored with group memories so a person's words in a group can be found again. */
  speakerId?: string;
  /** The conversation, so what is remembered here is linked to it. */
  sessionId: string;
  now: () => number;
  logger: Logger;
}

/**
 * `remember`, `recall` and `forget`, bound to one person for one run. Memories are shown to the
 * model as small numbers (`#1`, `#2`) that `forget` maps back: the model never sees or invents
 * memory ids, and can only forget what it recalled for this person.
 */
export function createMemoryTools(options: MemoryToolsOptions): ToolSet {
  const { memory, userId, sessionId, logger } = options;
  const words = options.subject === 'group' ? GROUP_WORDS : PERSON_WORDS;
  const speaker: MemoryMetadataValues =
    options.subject === 'group' && options.speakerId ? { speaker: options.speakerId } : {};
  // The run's numbering, made when a tool first runs: most runs call no tool at all.
  let numbering:
    | { handles: Map<number, string>; handleOf: Map<string, number>; globalIds: Set<string> }
    | undefined;
  const numbered = () => (numbering ??= { handles: new Map(), handleOf: new Map(), globalIds: new Set() });
  const handleFor = (id: string): number => {
    const { handles, handleOf } = numbered();
    let handle = handleOf.get(id);
    if (handle === undefined) {
      handle = handles.size + 1;
      handles.set(handle, id);
      handleOf.set(id, handle);
    }
    return handle;
  };

  return {
    remember: tool({
      description: words.remember,
      inputSchema: REMEMBER_INPUT,
      execute: async ({ content, category }, { abortSignal }) => {
        const result = await memory.add({
          userId,
          content,
          category,
          source: 'user_explicit',
          scope: 'user',
          sessionId,
          metadata: { via: 'remember', ...speaker },
          ...(abortSignal ? { abortSignal } : {}),
        });
        logger.info({ tool: 'remember', action: result.action }, 'memory tool used');
        return { stored: true, memory: `#${handleFor(result.memory.id)}`, action: result.action };
      },
    }),
    recall: tool({
      description: words.recall,
      inputSchema: RECALL_INPUT,
      execute: async ({ query, limit }, { abortSignal }) => {
        const signal = abortSignal ? { abortSignal } : {};
        // Global memories live under their own partition, never under the person's id: searched
        // apart, then merged by score.
        const [own, global] = await Promise.all([
          memory.search({ userId, query, limit, scopes: ['user'], ...signal }),
          memory.search({ userId: GLOBAL_PARTITION, query, limit, scopes: ['global'], ...signal }),
        ]);
        const hits = [...own, ...global].sort((left, right) => right.score - left.score).slice(0, limit);
        for (const hit of hits) if (hit.scope === 'global') numbered().globalIds.add(hit.id);
        const now = options.now();
        logger.info({ tool: 'recall', found: hits.length }, 'memory tool used');
        return {
          memories: hits.map((hit) => ({
            memory: `#${handleFor(hit.id)}`,
            content: hit.content,
            category: hit.category,
            told: hit.source === 'user_explicit' ? words.told : 'inferred',
            age: describeMemoryAge(now - hit.updatedAt),
            ...(hit.scope === 'global' ? { scope: 'global' } : {}),
          })),
        };
      },
    }),
    forget: tool({
      description: words.forget,
      inputSchema: FORGET_INPUT,
      execute: async ({ memory: reference }, { abortSignal }) => {
        const handle = Number(String(reference).replace(/^#/u, ''));
        const id = Number.isInteger(handle) ? numbering?.handles.get(handle) : undefined;
        if (!id)
          return { forgotten: false, reason: `No recalled memory ${String(reference)}; call recall first.` };
        if (numbering?.globalIds.has(id))
          return {
            forgotten: false,
            reason: `${String(reference)} is a global memory (for everyone); only the operator can change it.`,
          };
        const { deleted } = await memory.delete({ userId, id, ...(abortSignal ? { abortSignal } : {}) });
        logger.info({ tool: 'forget', deleted }, 'memory tool used');
        return { forgotten: deleted };
      },
    }),
  };
}

const PERSON_WORDS = {
  remember:
    'Store a lasting fact or preference about the person you are talking to, when they ask you to remember it or state it clearly. One short sentence in their language, in the third person (e.g. "Prefers metric units").',
  recall:
    'Search what you remember about the person you are talking to. Returns numbered memories (#1, #2, …) that `forget` accepts.',
  forget:
    'Forget a memory about the person you are talking to, by its number from `recall` (e.g. "#2"). Call `recall` first.',
  told: 'by the person',
};

// In a group these tools reach the group's memory only: no person's memory is reachable from a group.
const GROUP_WORDS = {
  remember:
    'Store a lasting fact about this group chat (its purpose, shared plans, decisions, conventions), when a member asks you to remember it. Every member can see it. It never goes into anyone\'s personal memory; do not store a member\'s private facts. One short sentence in the third person about the group (e.g. "Meets on Fridays").',
  recall:
    "Search what you remember about this group chat. Only the group's own memory is searched: the personal memories of its members are not available in a group. Returns numbered memories (#1, #2, …) that `forget` accepts.",
  forget:
    'Forget a memory of this group chat, by its number from `recall` (e.g. "#2"). Call `recall` first. Personal memories of members cannot be changed from a group.',
  told: 'by a member',
};
