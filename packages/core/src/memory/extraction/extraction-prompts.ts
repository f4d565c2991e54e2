import { MEMORY_CATEGORIES, memoryCategorySchema, memorySourceSchema } from '@nexus/protocol';
import { z } from 'zod';

export const MAX_FACTS_PER_TURN = 5;
/** Longer answers are cut to the best `MAX_FACTS_PER_TURN`; beyond this the answer is nonsense. */
const MAX_FACTS_ACCEPTED = 50;
const categorySchema = memoryCategorySchema;
const sourceSchema = memorySourceSchema;

export const extractedFactsSchema = z.object({
  facts: z
    .array(
      z.object({
        content: z.string().trim().min(1).max(500),
        category: categorySchema,
        source: sourceSchema,
      }),
    )
    .max(MAX_FACTS_ACCEPTED)
    .transform(bestFacts),
});
export type ExtractedFact = z.infer<typeof extractedFactsSchema>['facts'][number];

/**
 * A model that names more facts than asked loses the extras, not the turn: the best
 * `MAX_FACTS_PER_TURN` are kept, what the person said before what was inferred, then by category
 * (`MEMORY_CATEGORIES`), then in the model's own order.
 */
function bestFacts<T extends { category: (typeof MEMORY_CATEGORIES)[number]; source: string }>(
  facts: T[],
): T[] {
  if (facts.length <= MAX_FACTS_PER_TURN) return facts;
  const rank = (fact: T) =>
    (fact.source === 'user_explicit' ? 0 : MEMORY_CATEGORIES.length) +
    MEMORY_CATEGORIES.indexOf(fact.category);
  return facts
    .map((fact, index) => ({ fact, index }))
    .sort((left, right) => rank(left.fact) - rank(right.fact) || left.index - right.index)
    .slice(0, MAX_FACTS_PER_TURN)
    .sort((left, right) => left.index - right.index)
    .map(({ fact }) => fact);
}

/** "2026-11-22 (Sunday)" in UTC: the model resolves "tomorrow" and "last week" against it. */
export function calendarDate(at: Date): string {
  const weekday = at.toLocaleDateString('en-GB', { weekday: 'long', timeZone: 'UTC' });
  return `${at.toISOString().slice(0, 10)} (${weekday})`;
}

export function factExtractionInstructions(today: string): string {
  return `You extract lasting facts about a person from one exchange between them and an assistant, for the assistant's long-term memory.
Today's date is ${today}. Turn relative dates ("tomorrow", "next Friday", "last week") into absolute dates.
Rules:
- Only facts about the person who wrote the message, from what they said. Never facts about the assistant or other people in the chat, and nothing taken only from the assistant's reply.
- At most ${MAX_FACTS_PER_TURN} facts; fewer is better. None for greetings, questions, small talk or anything that will not matter later.
- Each fact is one short sentence without a subject, in the third person ("Is vegetarian", "Lives in Lisbon"), written in the same language as the person's message.
- category: "preference" (likes, dislikes, how they want to be answered), "fact" (where they live, work, family, diet, other stable facts), "pattern" (habits, routines), "event" (something with a date that happened or will happen).
- source: "user_explicit" when the person said it directly, "inferred" when you concluded it.
Answer with JSON only, no prose: {"facts":[{"content":"...","category":"fact","source":"user_explicit"}]}`;
}

/**
 * For group turns: only facts about the group as a whole, because they land in the group's memory,
 * which every member sees; a member's private facts are never stored from a group.
 */
export function groupFactExtractionInstructions(today: string): string {
  return `You extract lasting facts about a group chat from one exchange between a member and an assistant, for the assistant's long-term memory of this group.
What you extract is stored in the group's memory, which every member of the group can see. It is never stored in anyone's personal memory.
Today's date is ${today}. Turn relative dates ("tomorrow", "next Friday", "last week") into absolute dates.
Rules:
- Only facts about the group as a whole: what it is for, shared plans, decisions, events and conventions the members agreed on.
- Never facts about one member's private life (health, money, relationships, contact details, where they live, what they told you in confidence), never facts about the assistant, and nothing taken only from the assistant's reply.
- At most ${MAX_FACTS_PER_TURN} facts; fewer is better. None for greetings, questions, small talk or anything that will not matter later.
- Each fact is one short sentence in the third person about the group ("Meets every Friday at 18:00", "Is planning a trip to Porto on 2026-12-12"), written in the same language as the message.
- category: "preference" (how the group wants to be answered), "fact" (stable facts about the group), "pattern" (routines), "event" (something with a date).
- source: "user_explicit" when a member said it directly, "inferred" when you concluded it.
Answer with JSON only, no prose: {"facts":[{"content":"...","category":"fact","source":"user_explicit"}]}`;
}

export function factExtractionPrompt(
  userText: string,
  replyText: string,
  group = false,
  previousUserText?: string,
): string {
  const who = group ? 'A member of the group' : 'The person';
  const wrote =
    previousUserText === undefined
      ? `${who} wrote:\n<<<\n${userText}\n>>>`
      : `${who} edited a message they had sent. It used to say:\n<<<\n${previousUserText}\n>>>\n\nIt now says:\n<<<\n${userText}\n>>>\n\nExtract facts from what it says now only; the earlier words are shown so you see what they corrected.`;
  return `${wrote}\n\nThe assistant replied:\n<<<\n${replyText}\n>>>`;
}

export const memoryDecisionsSchema = z.object({
  decisions: z.array(
    z.object({
      fact: z.number().int().min(1).optional(),
      action: z.enum(['ADD', 'UPDATE', 'DELETE', 'NONE']),
      memory: z.number().int().min(1).optional(),
      content: z.string().trim().min(1).max(500).optional(),
    }),
  ),
});
export type MemoryDecision = z.infer<typeof memoryDecisionsSchema>['decisions'][number];

export const MEMORY_DECISION_INSTRUCTIONS = memoryDecisionInstructions('person');

/** The decision step; for a group, its memory holds facts about the group, not about a person. */
export function memoryDecisionInstructions(subject: 'person' | 'group'): string {
  const whose = subject === 'group' ? "a group chat's" : "a person's";
  const about = subject === 'group' ? 'the group' : 'the person';
  return `You keep ${whose} long-term memory up to date. You get new facts about ${about} and the stored memories most similar to them, each memory with a number in brackets.
Decide for each new fact:
- ADD: it is new information; store it.
- UPDATE: it changes or refines a stored memory about the same thing (they moved, changed their mind, more detail); give that memory's number and the new content that replaces it.
- DELETE: a stored memory is no longer true and nothing should replace it; give that memory's number.
- NONE: it is already stored with the same meaning, or not worth keeping.
A newer fact always wins over a stored memory it contradicts: never keep both. Write content in the language of the fact.
Use only the numbers shown. Answer with JSON only, no prose: {"decisions":[{"fact":1,"action":"ADD"},{"fact":2,"action":"UPDATE","memory":3,"content":"..."},{"fact":3,"action":"DELETE","memory":1},{"fact":4,"action":"NONE"}]}`;
}

/** Marks a stored memory learned from the words an edit replaced. */
export const FROM_EDITED_MESSAGE = 'learned from the earlier version of the edited message';

/** Added to the decision step of an edit: memories from the replaced words must be judged again. */
export const EDITED_MESSAGE_DECISIONS = `The person edited a message after writing it. Stored memories marked "${FROM_EDITED_MESSAGE}" came from words they have since changed: for each of them, UPDATE it to what the message says now, DELETE it when the message no longer says it, or NONE only when a new fact still says the same thing. A decision about such a memory may leave out "fact".`;

export function memoryDecisionPrompt(
  facts: readonly ExtractedFact[],
  stored: ReadonlyArray<{ content: string; category: string; age: string; fromEditedMessage?: boolean }>,
): string {
  const factLines = facts.map((fact, index) => `${index + 1}. ${fact.content} (${fact.category})`);
  const storedLines = stored.map(
    (memory, index) =>
      `[${index + 1}] ${memory.content} (${memory.category}, ${memory.age}${memory.fromEditedMessage ? `; ${FROM_EDITED_MESSAGE}` : ''})`,
  );
  return `New facts:\n${factLines.length > 0 ? factLines.join('\n') : '(none)'}\n\nStored memories:\n${storedLines.join('\n')}`;
}
