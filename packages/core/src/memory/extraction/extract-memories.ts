import {
  describeMemoryAge,
  type Logger,
  type MemoryMetadataValues,
  type MemoryPort,
  type MemorySearchHit,
} from '@nexus/protocol';
import type { LanguageModel } from 'ai';
import { zonedCalendarDate } from '../../time-zones/zoned-time.ts';
import { type MemorySubject, memorySubjectOf } from '../memory-subject.ts';
import { askModelForJson } from './ask-model-for-json.ts';
import {
  calendarDate,
  EDITED_MESSAGE_DECISIONS,
  type ExtractedFact,
  extractedFactsSchema,
  factExtractionInstructions,
  factExtractionPrompt,
  groupFactExtractionInstructions,
  type MemoryDecision,
  memoryDecisionInstructions,
  memoryDecisionPrompt,
  memoryDecisionsSchema,
} from './extraction-prompts.ts';
import { memoriesFromMessage } from './memories-from-message.ts';
import type { MemoryExtractionPayload } from './memory-extraction-job.ts';

export interface ExtractionReport {
  facts: number;
  added: number;
  updated: number;
  deleted: number;
  unchanged: number;
  /** False when nothing similar was stored, so every fact was added without asking the model. */
  decisionCall: boolean;
  /** Whose memory was written: the speaker's (`person`) or the group's (`group`); `none` skipped it. */
  subject: MemorySubject['kind'];
}

export interface ExtractMemoriesOptions {
  payload: MemoryExtractionPayload;
  memory: MemoryPort;
  model: LanguageModel;
  now: () => number;
  /** The speaker's IANA zone: "today" in the prompt is their date. Default UTC. */
  timeZone?: string;
  logger: Logger;
  abortSignal?: AbortSignal;
}

const SIMILAR_PER_FACT = 5;

/**
 * Extraction for one turn: facts from the exchange, then for each fact its most similar stored
 * memories and an ADD / UPDATE / DELETE / NONE decision. Stored memories are shown to the model as
 * small numbers and mapped back here, so a model can never touch an id it was not shown. Safe to
 * run again for the same turn: the memory service's exact-duplicate check makes a repeated ADD a
 * no-op, and the second run sees what the first one already wrote.
 *
 * For an edited message the facts come from its new words, and the memories learned from its old
 * words are always put before the decision step, marked, so the model updates or deletes what the
 * person corrected. For a deleted message no model is asked: the memories learned from it go.
 */
export async function extractMemories(options: ExtractMemoriesOptions): Promise<ExtractionReport> {
  const { payload, memory, model, abortSignal } = options;
  const signal = abortSignal ? { abortSignal } : {};
  const subject = extractionSubjectOf(payload);
  const report: ExtractionReport = {
    facts: 0,
    added: 0,
    updated: 0,
    deleted: 0,
    unchanged: 0,
    decisionCall: false,
    subject: subject.kind,
  };
  if (subject.kind === 'none') {
    options.logger.warn({ reason: subject.reason }, 'memory extraction skipped');
    return report;
  }
  const revision = payload.revision;
  const fromMessage = revision
    ? await memoriesFromMessage({
        memory,
        userId: subject.userId,
        messageIntentId: revision.messageIntentId,
        ...signal,
      })
    : [];
  if (revision?.kind === 'delete') {
    for (const record of fromMessage) {
      const { deleted } = await memory.delete({ userId: subject.userId, id: record.id, ...signal });
      if (deleted) report.deleted += 1;
    }
    return report;
  }
  const group = subject.kind === 'group';
  const destination: Destination = {
    userId: subject.userId,
    metadata: group ? { speaker: subject.speakerId } : {},
  };
  const occurredAt = Date.parse(payload.occurredAt);
  const at = Number.isFinite(occurredAt) ? occurredAt : options.now();
  const today = options.timeZone ? zonedCalendarDate(at, options.timeZone) : calendarDate(new Date(at));
  const { facts } = await askModelForJson({
    model,
    step: 'fact extraction',
    instructions: group ? groupFactExtractionInstructions(today) : factExtractionInstructions(today),
    prompt: factExtractionPrompt(payload.userText, payload.replyText, group, revision?.previousUserText),
    schema: extractedFactsSchema,
    ...signal,
  });
  report.facts = facts.length;
  if (facts.length === 0 && fromMessage.length === 0) return report;

  const similar = await Promise.all(
    facts.map((fact) =>
      memory.search({
        userId: destination.userId,
        query: fact.content,
        limit: SIMILAR_PER_FACT,
        scopes: ['user'],
        ...signal,
      }),
    ),
  );
  const edited = new Set(fromMessage.map((record) => record.id));
  const stored = distinctHits([...fromMessage, ...similar.flat()]);
  // Nothing similar stored: every fact is new, and no second model call is needed.
  report.decisionCall = stored.length > 0;
  const decisions: MemoryDecision[] = report.decisionCall
    ? await decideMemories({
        model,
        subjectKind: subject.kind,
        facts,
        stored,
        edited,
        now: options.now(),
        ...signal,
      })
    : facts.map((_, index) => ({ fact: index + 1, action: 'ADD' }));

  await applyDecisions({ options, destination, facts, stored, decisions, report });
  return report;
}

/** Whose memory extraction writes, and what each write carries besides the fact. */
interface Destination {
  userId: string;
  metadata: MemoryMetadataValues;
}

/**
 * The speaker's memory for a direct turn (or a group the owner allowed, marked in the job); the
 * group's memory for every other group turn, including jobs queued before the mark existed.
 */
export function extractionSubjectOf(payload: MemoryExtractionPayload): MemorySubject {
  const conversation = `${payload.channel}:${payload.conversationId}`;
  return memorySubjectOf(
    {
      channel: payload.channel,
      userId: payload.userId,
      conversation: { id: payload.conversationId, kind: payload.conversationKind },
    },
    payload.personalInGroup ? [{ conversation, userId: payload.userId }] : [],
  );
}

function addFact(
  options: ExtractMemoriesOptions,
  destination: Destination,
  fact: ExtractedFact,
  content: string,
) {
  return options.memory.add({
    userId: destination.userId,
    content,
    category: fact.category,
    source: fact.source,
    scope: 'user',
    sessionId: options.payload.sessionId,
    // The message the fact was learned from, so an edit or delete of it finds the fact again.
    metadata: {
      via: 'extraction',
      intentId: options.payload.revision?.messageIntentId ?? options.payload.intentId,
      ...destination.metadata,
    },
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
}

function decisionProblem(decision: MemoryDecision, facts: number, stored: number): string | undefined {
  if (decision.fact !== undefined && decision.fact > facts) return `there is no fact ${decision.fact}`;
  if (decision.memory !== undefined && decision.memory > stored)
    return `there is no stored memory [${decision.memory}]`;
  if (decision.action === 'ADD' && decision.fact === undefined) return 'ADD needs "fact"';
  if ((decision.action === 'UPDATE' || decision.action === 'DELETE') && decision.memory === undefined)
    return `${decision.action} needs "memory"`;
  return undefined;
}

type StoredMemory = Pick<MemorySearchHit, 'id' | 'content' | 'category' | 'source' | 'updatedAt'>;

function distinctHits(hits: StoredMemory[]): StoredMemory[] {
  const byId = new Map<string, StoredMemory>();
  for (const hit of hits) if (!byId.has(hit.id)) byId.set(hit.id, hit);
  return [...byId.values()];
}

/**
 * The decision step: for each new fact, what to do with the similar memories already stored (and
 * those learned from an edited message's old words, marked so the model can correct them).
 */
async function decideMemories(options: {
  model: ExtractMemoriesOptions['model'];
  subjectKind: Parameters<typeof memoryDecisionInstructions>[0];
  facts: Parameters<typeof memoryDecisionPrompt>[0];
  stored: ReturnType<typeof distinctHits>;
  edited: Set<string>;
  now: number;
  abortSignal?: AbortSignal;
}): Promise<MemoryDecision[]> {
  const { facts, stored, edited, now } = options;
  const answer = await askModelForJson({
    model: options.model,
    step: 'memory decisions',
    instructions:
      edited.size > 0
        ? `${memoryDecisionInstructions(options.subjectKind)}\n${EDITED_MESSAGE_DECISIONS}`
        : memoryDecisionInstructions(options.subjectKind),
    prompt: memoryDecisionPrompt(
      facts,
      stored.map((hit) => ({
        content: hit.content,
        category: hit.category,
        age: describeMemoryAge(now - hit.updatedAt),
        fromEditedMessage: edited.has(hit.id),
      })),
    ),
    schema: memoryDecisionsSchema.superRefine((value, context) => {
      value.decisions.forEach((decision, index) => {
        const problem = decisionProblem(decision, facts.length, stored.length);
        if (problem) context.addIssue({ code: 'custom', path: ['decisions', index], message: problem });
      });
    }),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  return answer.decisions;
}

/**
 * The decisions carried out, each stored memory touched at most once: ADD writes a fact, UPDATE
 * rewrites a memory (the old one goes when the write did not land on it), DELETE removes one.
 */
async function applyDecisions(context: {
  options: ExtractMemoriesOptions;
  destination: Destination;
  facts: Parameters<typeof memoryDecisionPrompt>[0];
  stored: ReturnType<typeof distinctHits>;
  decisions: MemoryDecision[];
  report: ExtractionReport;
}): Promise<void> {
  const { options, destination, facts, stored, decisions, report } = context;
  const { memory, abortSignal } = options;
  const signal = abortSignal ? { abortSignal } : {};
  const touched = new Set<number>();
  for (const decision of decisions) {
    const fact = decision.fact === undefined ? undefined : facts[decision.fact - 1];
    const target = decision.memory === undefined ? undefined : stored[decision.memory - 1];
    if (target) {
      if (touched.has(decision.memory!)) continue;
      touched.add(decision.memory!);
    }
    if (decision.action === 'ADD' && fact) {
      const result = await addFact(options, destination, fact, decision.content ?? fact.content);
      if (result.action === 'inserted' || result.action === 'updated') report.added += 1;
      else report.unchanged += 1;
    } else if (decision.action === 'UPDATE' && target) {
      const content = decision.content ?? fact?.content ?? target.content;
      const result = await addFact(
        options,
        destination,
        fact ?? { content, category: target.category, source: target.source },
        content,
      );
      if (result.memory.id !== target.id)
        await memory.delete({ userId: destination.userId, id: target.id, ...signal });
      report.updated += 1;
    } else if (decision.action === 'DELETE' && target) {
      const { deleted } = await memory.delete({ userId: destination.userId, id: target.id, ...signal });
      if (deleted) report.deleted += 1;
    } else {
      report.unchanged += 1;
    }
  }
}
