import {
  type IntakeResult,
  type Intent,
  type IntentInput,
  intentSchema,
  MAX_INTENT_TEXT_CHARS,
} from '@nexus/protocol';
import { z } from 'zod';

/** Validate: the first intake step. A bad intent is refused with the first field at fault. */
export function validateIntent(input: IntentInput): Intent | IntakeResult {
  const plain = plainIntent(input);
  if (plain) return plain;
  const parsed = intentSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'intent';
  return { status: 'rejected', code: 'invalid_intent', message: `${field}: ${issue?.message ?? 'invalid'}` };
}

/** The pattern `z.iso.datetime()` (intentSchema's `receivedAt`) checks against. */
const RECEIVED_AT = z.regexes.datetime({});
const CONVERSATION_KINDS: ReadonlySet<string> = new Set(intentSchema.shape.conversation.shape.kind.options);

/**
 * `intentSchema` applied without zod to the common message: no attachments, not a revision. Every
 * field is checked as the schema checks it and the result has the schema's keys only (fresh
 * objects, the default `attachments: []` filled in). Anything else, valid or not, is left to the
 * schema (`undefined` here), so an edit, a file or an error is exactly what the schema makes of it.
 * The zod parse was ~3 KB of allocation on every message. validate-intent.test.ts checks this
 * against every limit and field `intentSchema` declares (`schemaEdgeCases`); a rule it cannot
 * read there (a `.refine`, a new format) has to be added here by hand with the schema's.
 */
function plainIntent(value: unknown): Intent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const input = value as Record<string, unknown>;
  const { id, channel, conversation, sender, userId, text, attachments, replyTo, revises } = input;
  const { mentionsAssistant, receivedAt } = input;
  if (!isText(id, 1, 512) || !isText(channel, 1, 64) || !isText(userId, 1, 512)) return undefined;
  if (!isText(text, 0, MAX_INTENT_TEXT_CHARS)) return undefined;
  if (attachments !== undefined && !(Array.isArray(attachments) && attachments.length === 0))
    return undefined;
  if (revises !== undefined || (replyTo !== undefined && !isText(replyTo, 0, 512))) return undefined;
  if (typeof mentionsAssistant !== 'boolean') return undefined;
  if (typeof receivedAt !== 'string' || !RECEIVED_AT.test(receivedAt)) return undefined;
  if (typeof conversation !== 'object' || conversation === null) return undefined;
  const { id: conversationId, kind, title } = conversation as Record<string, unknown>;
  if (!isText(conversationId, 1, 512) || typeof kind !== 'string' || !CONVERSATION_KINDS.has(kind))
    return undefined;
  if (title !== undefined && !isText(title, 0, 512)) return undefined;
  if (typeof sender !== 'object' || sender === null) return undefined;
  const { platformId, displayName } = sender as Record<string, unknown>;
  if (!isText(platformId, 1, 512) || (displayName !== undefined && !isText(displayName, 0, 512)))
    return undefined;
  // In the schema's key order: an intent stored or sent as JSON reads the same either way.
  const intent = {
    id,
    channel,
    conversation: {
      id: conversationId,
      kind: kind as Intent['conversation']['kind'],
    } as Intent['conversation'],
    sender: { platformId } as Intent['sender'],
    userId,
    text,
    attachments: [],
  } as unknown as Intent;
  if (title !== undefined) intent.conversation.title = title;
  if (displayName !== undefined) intent.sender.displayName = displayName;
  if (replyTo !== undefined) intent.replyTo = replyTo;
  intent.mentionsAssistant = mentionsAssistant;
  intent.receivedAt = receivedAt;
  if (input.raw !== undefined) intent.raw = input.raw;
  return intent;
}

function isText(value: unknown, min: number, max: number): value is string {
  return typeof value === 'string' && value.length >= min && value.length <= max;
}
