import type {
  ChatCompletionMessage,
  ChatCompletionRequest,
  ScriptedModelServer,
  ScriptedResponse,
} from '@nexus/testkit/llm';
import { isChatTurn, isDecision, isExtraction } from './memory-test-support.ts';

export { until } from './until.ts';

/**
 * Helpers for the gateway-level edit and delete tests (edits-*.int.test.ts): what the scripted
 * model was asked, as text a test can search, and a model that learns where someone lives.
 */

const textOf = (message: ChatCompletionMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : (message.content ?? []).map((part) => part.text ?? '').join('');

/** The chat turns the model was asked (extraction and its decisions left out), oldest first. */
export function chatTurns(model: ScriptedModelServer): ChatCompletionRequest[] {
  return model
    .chatRequests()
    .map((recorded) => recorded.body as ChatCompletionRequest)
    .filter(isChatTurn);
}

/** A request's conversation without the system prompt, one `role: text` line per message. */
export function historyOf(request: ChatCompletionRequest | undefined): string {
  if (!request) throw new Error('no chat request was recorded');
  return request.messages
    .filter((message) => message.role !== 'system')
    .map((message) => `${message.role}: ${textOf(message)}`)
    .join('\n');
}

/** The history of the newest chat turn. */
export const lastHistory = (model: ScriptedModelServer): string => historyOf(chatTurns(model).at(-1));

/** The note core writes where an older message was edited (packages/core/src/revisions/correction-note.ts). */
export const correctionNotePattern = (before: string, after: string): RegExp =>
  new RegExp(
    `\\[Note: the person edited one of their earlier messages\\. It said "${escapeRegExp(before)}" and now says "${escapeRegExp(after)}"\\.`,
    'u',
  );

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

const lastUserOf = (request: ChatCompletionRequest): string =>
  textOf(request.messages.findLast((message) => message.role === 'user') ?? { role: 'user' });

const CITIES = ['Lisbon', 'Porto'];

/**
 * Chat turns are echoed (`Echo: <text>`). Extraction finds "Lives in <city>" in what the message
 * says now (for an edit, the part after "It now says:"); the decision step updates a memory core
 * marks as learned from the edited message's earlier words, and adds anything else.
 */
export function livesInResponder(request: ChatCompletionRequest): ScriptedResponse {
  const prompt = lastUserOf(request);
  if (isExtraction(request)) {
    const current = prompt.includes('It now says:') ? prompt.split('It now says:')[1]! : prompt;
    const said = current.split('The assistant replied:')[0]!;
    const city = CITIES.find((name) => said.includes(name));
    const facts = city ? [{ content: `Lives in ${city}`, category: 'fact', source: 'user_explicit' }] : [];
    return { text: JSON.stringify({ facts }) };
  }
  if (isDecision(request)) {
    const newFact = /^1\. (.+) \(fact\)$/mu.exec(prompt)?.[1];
    const marked = prompt.split('\n').find((line) => line.includes('learned from the earlier version'));
    const memory = marked ? Number(/^\[(\d+)\]/u.exec(marked)?.[1]) : undefined;
    const decisions =
      memory === undefined
        ? [{ fact: 1, action: 'ADD' }]
        : newFact
          ? [{ fact: 1, action: 'UPDATE', memory, content: newFact }]
          : [{ action: 'DELETE', memory }];
    return { text: JSON.stringify({ decisions }) };
  }
  return { text: `Echo: ${prompt}` };
}

/** Lets anything already on its way (a duplicate turn, a second reply) show up before asserting it did not. */
export const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));
